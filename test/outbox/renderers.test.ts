import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { APP_RENDERER_NAMES, createOutbox } from '../../src/outbox/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testRenderer } from '../helpers/renderers.js';

let dir: string;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

async function outbox() {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'renderers-'));
  store = await openStore({ dir });
  // Never started: the check runs before the outbox sends anything, so no Slack is needed.
  return createOutbox({ store, client: new WebClient('xoxb-none'), logger: createLogger({ level: 'silent' }) });
}

describe('the renderer registry checked at start', () => {
  it('a message kind without a renderer stops the start, named', async () => {
    const ob = await outbox();
    const draw = () => ({ text: 'x' });
    ob.registerBurstRenderer(draw);
    for (const name of APP_RENDERER_NAMES)
      if (name === 'alert.batch')
        ob.registerBatchRenderer(name, { render: () => ({ text: 'x' }), fits: (refs) => refs.length });
      else if (name !== 'digest.daily' && name !== 'job-notice') ob.registerRenderer(name, draw);
    expect(() => ob.assertRenderers()).toThrow(
      'No renderer is registered for digest.daily, job-notice: messages of these kinds could not be sent',
    );
    ob.registerRenderer('digest.daily', draw);
    expect(() => ob.assertRenderers()).toThrow(/registered for job-notice: messages of this kind/);
    ob.registerRenderer('job-notice', draw);
    expect(() => ob.assertRenderers()).not.toThrow();
  });

  it('burst summaries without their words stop the start too', async () => {
    const ob = await outbox();
    const draw = () => ({ text: 'x' });
    for (const name of APP_RENDERER_NAMES)
      if (name === 'alert.batch') ob.registerBatchRenderer(name, { render: draw, fits: (refs) => refs.length });
      else ob.registerRenderer(name, draw);
    expect(() => ob.assertRenderers()).toThrow(/No renderer is registered for outbox\.burst: messages of this kind/);
    ob.registerBurstRenderer(draw);
    expect(() => ob.assertRenderers()).not.toThrow();
  });

  it('a test-made kind is checked when named, and the app list does not need it', async () => {
    const ob = await outbox();
    expect(() => ob.assertRenderers([testRenderer('test.kind')])).toThrow(/test\.kind/);
    ob.registerRenderer(testRenderer('test.kind'), () => ({ text: 'x' }));
    expect(() => ob.assertRenderers([testRenderer('test.kind')])).not.toThrow();
  });
});
