/** What the outbox is built with (index.ts). */
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { SlackClient } from './context.js';
import type { OutboxEntry } from './types.js';

export interface OutboxOptions {
  store: Store;
  client: SlackClient;
  logger: Logger;
  now?: () => number;
  /** After an entry is in Slack (metrics: an alert's delay). Must not throw. */
  onSent?: (entry: OutboxEntry) => void;
  /** Minimum gap between two messages in one lane (Slack allows about one per second per channel). */
  paceMs?: number;
  /**
   * Minimum gap between two chat.update calls, workspace-wide (Slack's per-minute budget for
   * that method). Default 1250 ms (48 a minute); when only paceMs is given, paceMs.
   */
  updatePaceMs?: number;
  /**
   * Every this many post slots of a channel, while an older post of a lower priority (a thread
   * detail, a finding, the backlog) has waited through the ones before, the slot goes to the
   * oldest waiting post: a steady stream of news never starves the rest. Default 5.
   */
  reserveEvery?: number;
  /** More than this many `burst` posts waiting for one channel become a summary + thread. */
  burstThreshold?: number;
  /** First retry delay; doubles per attempt up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How far before an uncertain attempt the history lookup starts. */
  lookbackMs?: number;
  /**
   * After an attempt with an unknown outcome, wait at least this long before looking it up:
   * Slack may still be processing a request whose response we gave up on.
   */
  unknownOutcomeDelayMs?: number;
  /** Awaited before each attempt: the posts give way to work that goes first (src/util/give-way.ts). */
  giveWay?: () => Promise<void>;
}
