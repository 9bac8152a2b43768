/**
 * The outbox's records. Everything here is plain JSON kept in the store, so a restart
 * picks up exactly where the previous process stopped.
 */

export type OutboxOp = 'post' | 'update' | 'reply' | 'dm' | 'ephemeral';

/** What a caller asks for. The content is not stored: it is rendered when the entry is sent. */
export interface OutboxRequest {
  op: OutboxOp;
  /** A renderer registered with `registerRenderer`, and what it should render. */
  renderer: string;
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
  result?: { channel: string; ts?: string; adopted?: boolean; collapsedInto?: string; skipped?: boolean; uncertain?: boolean };
  finishedAt?: number;
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
}

export interface Rendered {
  text: string;
  blocks?: unknown[];
}

export interface RenderContext {
  op: OutboxOp;
  key?: string;
  now: number;
}

/** Renders from the CURRENT state; returning null means there is nothing to send any more. */
export type Renderer = (ref: string, ctx: RenderContext) => Rendered | null;

export const COLLECTIONS = {
  entries: 'outbox',
  messages: 'outbox_messages',
  bursts: 'outbox_bursts',
  meta: 'outbox_meta',
} as const;
