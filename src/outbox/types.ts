/**
 * The outbox's records. Everything here is plain JSON kept in the store, so a restart
 * picks up exactly where the previous process stopped.
 */
import { collection } from '../store/collection.js';
import type { RendererName } from './renderers.js';

/** `delete_file`: a file the app uploaded and must not leave in Slack (an authenticator QR code); `ref` is its id. */
export type OutboxOp = 'post' | 'update' | 'reply' | 'dm' | 'ephemeral' | 'delete_file';

/**
 * Which waiting entry of a lane goes first: live news, then edits, then reconciliation
 * findings, then claims (what a notification says and the wallet's history does not show yet:
 * a flood of forged ones never buries a real alert), then thread details. Entries without one
 * all rank as `live`, so for them the lane is plain first-in first-out, as it always was.
 */
export type OutboxPriority = 'live' | 'edit' | 'reconciliation' | 'claim' | 'detail';

/** What a caller asks for. The content is not stored: it is rendered when the entry is sent. */
export interface OutboxRequest {
  op: OutboxOp;
  /** A renderer registered with `registerRenderer` (renderers.ts lists them), and what it should render. */
  renderer: RendererName;
  ref: string;
  /**
   * post / dm: the name later operations use for the message (its ts is stored under it).
   * update / reply: the message to edit or reply under. Required for those two.
   */
  key?: string;
  /** post, ephemeral: the channel id. */
  channel?: string;
  /** dm, ephemeral: the user id. */
  user?: string;
  /**
   * post only: this message may be folded into a burst summary (posted as a thread reply
   * under it) when too many of its kind are waiting for the same channel.
   */
  burst?: { label: string; mention?: boolean };
  /**
   * post only: when several posts of the same group wait for one channel at a posting slot,
   * they become ONE message drawn by the batch renderer (one line each); a lone one is
   * posted as its own message. Later edits of a batched key edit the batch message.
   */
  batch?: { renderer: RendererName; group: string };
  /**
   * post only: sent only if the message of this key went out inside a batch message (a
   * failure that deserves its own message although its line already shows it); skipped if
   * that message is a message of its own (which its edit already covers).
   */
  ifBatched?: string;
  priority?: OutboxPriority;
}

export type OutboxState = 'pending' | 'done' | 'failed';

export interface OutboxEntry extends OutboxRequest {
  id: string;
  /** Position in its lane; lanes are drained in this order. */
  order: number;
  /** Channel id, or `dm:<user>` before the DM channel is known. */
  lane: string;
  state: OutboxState;
  createdAt: number;
  attempts: number;
  lastError?: string;
  /** When the latest post attempt was marked (durably, just before it went out). */
  sentAt?: number;
  /**
   * When the first post attempt whose outcome is still unknown was marked. Set (durably)
   * before a post goes out and never moved while the doubt lasts, so the history lookup
   * always reaches back to the earliest attempt that may have landed. Cleared only when a
   * post attempt failed in a way that proves nothing was sent (the lookup before it having
   * ruled out the earlier ones); a failed lookup never clears it.
   * Entries written before this field existed carry only `sentAt`: it stands in for it.
   */
  firstUncertainAt?: number;
  /** DM channel id once conversations.open answered. */
  dmChannel?: string;
  /** Burst: the key of the summary message this post is a thread reply under. */
  threadUnder?: string;
  result?: {
    channel: string;
    ts?: string;
    adopted?: boolean;
    collapsedInto?: string;
    skipped?: boolean;
    uncertain?: boolean;
    batchedInto?: string;
  };
  finishedAt?: number;
  /** The request (webhook, Slack request, job run) that enqueued it: its logs and this entry's share the id. */
  requestId?: string;
}

/** A message the outbox posted (or will post), by key. */
export interface OutboxMessage {
  key: string;
  lane: string;
  entryId: string;
  channel?: string;
  ts?: string;
  /** Set when the message is itself a thread reply (burst detail): replies to it go to this thread. */
  threadTs?: string;
  /** The batch message that shows this key as one of its lines (its edits go there). */
  batchKey?: string;
}

/** A batch message: which entries it carries, in line order. Fixed once written. */
export interface OutboxBatch {
  key: string;
  lane: string;
  renderer: RendererName;
  group: string;
  members: Array<{ entryId: string; key?: string; ref: string }>;
  createdAt: number;
}

export interface Rendered {
  text: string;
  blocks?: unknown[];
  /**
   * Slack message metadata for other apps and workflows (src/slack/message-metadata.ts). The
   * outbox adds `outbox_id` to the payload (its own key, how a lost post is found again).
   */
  metadata?: { event_type: string; event_payload: Record<string, string | number | boolean> };
}

export interface RenderContext {
  op: OutboxOp;
  key?: string;
  now: number;
}

/** Renders from the CURRENT state; returning null means there is nothing to send any more. */
export type Renderer = (ref: string, ctx: RenderContext) => Rendered | null;

/**
 * Draws a batch message from the refs of its lines (current state, at send time), and says
 * how many of the given refs, taken in order, fit in one message within Slack's limits
 * (leaving room for the lines to grow with later statuses).
 */
export interface BatchRenderer {
  render(refs: string[], ctx: RenderContext): Rendered | null;
  fits(refs: string[]): number;
}

/**
 * Words a burst summary from what it counts (the app's, src/slack/burst-summary.ts: the outbox
 * holds the data, never the words): how many posts of each label, whether to call the channel,
 * since when.
 */
export type BurstRenderer = (
  burst: Pick<OutboxBurst, 'labels' | 'mention' | 'firstAt' | 'count'>,
  ctx: RenderContext,
) => Rendered | null;

/** A burst summary: the posts folded under it (by entry id) and what its headline counts. */
export interface OutboxBurst {
  key: string;
  channel: string;
  labels: Record<string, number>;
  mention: boolean;
  firstAt: number;
  count: number;
  members: string[];
}

/** The outbox's counter (the order of the next entry). */
export interface OutboxSeq {
  seq: number;
}

/** The persisted names must never change: existing data directories are read by them. */
export const COLLECTIONS = {
  entries: collection<OutboxEntry>('outbox'),
  messages: collection<OutboxMessage>('outbox_messages'),
  bursts: collection<OutboxBurst>('outbox_bursts'),
  batches: collection<OutboxBatch>('outbox_batches'),
  meta: collection<OutboxSeq>('outbox_meta'),
} as const;
