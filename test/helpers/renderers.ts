/**
 * A renderer name a test makes up (the app's own are one typed list: src/outbox/renderers.ts),
 * for outbox tests that register and send messages of their own kinds.
 */
import type { RendererName } from '../../src/outbox/renderers.js';

export const testRenderer = (name: string): RendererName => name as RendererName;
