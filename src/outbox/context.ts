/** What the outbox's parts share: its options, the store, the Slack client and a few lookups. */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import {
  COLLECTIONS,
  type BatchRenderer,
  type BurstRenderer,
  type OutboxEntry,
  type OutboxMessage,
  type Renderer,
} from './types.js';
import { BURST_RENDERER, type RendererName } from './renderers.js';

/** The subset of WebClient the worker uses; a real WebClient satisfies it. */
export type SlackClient = Pick<WebClient, 'chat' | 'conversations' | 'files'>;

export interface OutboxContext {
  store: Store;
  client: SlackClient;
  log: Logger;
  now: () => number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  lookbackMs: number;
  unknownOutcomeDelayMs: number;
  burstThreshold: number;
  renderers: Map<RendererName, Renderer>;
  batchRenderers: Map<RendererName, BatchRenderer>;
  /** The words of a burst summary (Outbox.registerBurstRenderer). */
  burstRenderer?: BurstRenderer;
  getEntry(id: string): OutboxEntry | undefined;
  getMessage(key: string): OutboxMessage | undefined;
  /** A keyed post or DM is now in Slack (its ts recorded): tells those who asked (Outbox.onPosted). */
  posted(key: string): void;
  /** An entry is done and in Slack (not skipped): metrics (OutboxOptions.onSent). */
  onSent?: (entry: OutboxEntry) => void;
}

/**
 * done: finished (sent, adopted, skipped or collapsed); retry: try again after a delay, the
 * whole lane (`wide`: a failure about the channel or workspace) or only this entry; `called`:
 * a Slack call was spent on it (the lane's pace applies).
 */
export type Outcome =
  | { kind: 'done'; sent: boolean }
  | { kind: 'parked' }
  | { kind: 'retry'; afterMs: number; rateLimited?: boolean; wide?: boolean; called?: boolean };

/** Since when an entry's earlier attempts may have landed; undefined when none may have. */
export function uncertainSince(e: Pick<OutboxEntry, 'firstUncertainAt' | 'sentAt'>): number | undefined {
  return e.firstUncertainAt ?? e.sentAt;
}

/** Whether a renderer of this name is registered (Outbox.assertRenderers). */
export const registered =
  (ctx: Pick<OutboxContext, 'renderers' | 'batchRenderers' | 'burstRenderer'>) =>
  (name: RendererName): boolean =>
    name === BURST_RENDERER ? !!ctx.burstRenderer : ctx.renderers.has(name) || ctx.batchRenderers.has(name);

/** The message a key is shown in: its own, or the batch message holding it as a line. */
export function shownIn(ctx: Pick<OutboxContext, 'getMessage'>, key: string): OutboxMessage | undefined {
  const m = ctx.getMessage(key);
  return m?.batchKey ? ctx.getMessage(m.batchKey) : m;
}

export { COLLECTIONS };
