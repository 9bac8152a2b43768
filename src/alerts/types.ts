/** The alert records kept in the store. */
import { collection } from '../store/collection.js';
import type { Valuation } from '../prices/types.js';
import type { WebhookEvent } from './parse.js';

/** The persisted names must never change: existing data directories are read by them. */
export const ALERT_COLLECTIONS = {
  events: collection<StoredEvent>('webhook_events'),
  alerts: collection<Alert>('alerts'),
  keys: collection<AlertKey>('alert_keys'),
} as const;

/** Another key (a withdrawal's hash, its reference) under which an alert filed elsewhere is found. */
export interface AlertKey {
  key: string;
  alertId: string;
}

export type AlertSource = 'webhook' | 'reconciliation';

/** One received notification (or one reconciliation finding), keyed by its dedup key. */
export interface StoredEvent {
  id: string;
  alertId: string;
  source: AlertSource;
  receivedAt: number;
  /** The body exactly as received (webhooks only). */
  raw?: string;
  event: WebhookEvent;
}

export interface AlertHistoryEntry {
  status?: string;
  at: number;
  source: AlertSource;
  /** false: arrived late (or unknown) and did not change the alert. */
  applied: boolean;
  eventId: string;
}

/** A field the wallet's history names differently from the notification. */
export interface Mismatch {
  field: 'amount' | 'currency' | 'network';
  claimed: string;
  listed: string;
}

export interface Verification {
  /**
   * confirmed: the service's transaction list has this hash, as a record of the alert's kind
   * (for a withdrawal of ours, under its reference), with the same amount, currency and network;
   * not_found: looked, no such record (yet); contradicted: its record names another amount,
   * currency or network (the notification may be forged). src/alerts/claims.ts decides.
   */
  state: 'unverified' | 'confirmed' | 'not_found' | 'contradicted';
  /** Look-ups of this hash alone (the batched sweep does not count here). */
  attempts: number;
  checkedAt?: number;
  hashUrl?: string;
  addressUrl?: string;
  listStatus?: string;
  mismatch?: Mismatch[];
  /**
   * A notification still not backed by the wallet's history `graceMs` after it reported the
   * transaction confirmed: flagged (may be forged). Kept if it turns up later (then it is confirmed).
   */
  flaggedAt?: number;
  graceMs?: number;
  /**
   * A withdrawal this app made (its notification named one of our requests' references): the
   * alert shows the request's settled outcome, the service's own answer, never the notification's
   * status. `settled` is absent while the request has not settled.
   */
  request?: { settled?: 'CONFIRMED' | 'FAILED' };
}

/** What an alert keeps of the webhook event that created it. */
type EventFields = Pick<
  WebhookEvent,
  | 'kind'
  | 'typeName'
  | 'hash'
  | 'amount'
  | 'charge'
  | 'totalAmount'
  | 'currency'
  | 'network'
  | 'clientEmail'
  | 'receiveAddress'
  | 'depositAddress'
  | 'receiverAddress'
  | 'senderAddress'
  | 'merchantReference'
  | 'reference'
>;

export interface Alert extends EventFields {
  id: string;
  status?: string;
  /** Unrecognised payloads: a few of their fields, for the generic rendering. */
  extra?: Record<string, unknown>;
  channel: string;
  mention: boolean;
  /**
   * Its value when it was ingested (the price cache then, the one `mention` was decided with);
   * absent without an amount and currency, or for alerts stored before values existed.
   */
  value?: Valuation;
  /** How we first learnt of it. */
  source: AlertSource;
  verification: Verification;
  history: AlertHistoryEntry[];
  /** The outbox message key of its Slack message. */
  messageKey: string;
  /**
   * A transaction from before the watermark, told by a webhook (the service replaying old
   * notifications): stored and counted in the history line, no message of its own, until a
   * later notification settles it (then that is news, and it is alerted).
   */
  historical?: true;
  /**
   * A claim gathered into its channel's flood summary (the key of that flood) instead of a
   * message of its own: shown one by one only once the wallet's history corroborates it.
   */
  gathered?: string;
  /** Its sender is sanctioned (sanctions.ts): flagged, never @here; `reported`: not yet confirmed by the service, so nobody told yet. */
  sanctioned?: {
    address: string;
    by: 'list' | 'provider';
    at: string;
    list: { date: string; sha256: string };
    reported?: true;
  };
  createdAt: number;
  updatedAt: number;
}
