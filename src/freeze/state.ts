/**
 * The freeze switch's durable state: one record per freeze, the one without `unfrozen` being
 * in force. Read inside commits (the send claim, the verification callback) so a freeze and
 * a send are ordered by the store, never by luck.
 */
import { collection, type Reads } from '../store/index.js';

export interface FreezeRecord {
  id: string;
  /** Slack user id of the admin who froze. */
  by: string;
  reason: string;
  at: string;
  /** An admin asked to unfreeze; a second, different admin must confirm. */
  unfreezeRequest?: { by: string; at: string };
  /** Set when the freeze ended (by two distinct admins). */
  unfrozen?: { requestedBy: string; confirmedBy: string; at: string };
}

/** Every freeze, by id; the persisted name must never change. */
export const FREEZES = collection<FreezeRecord>('freezes');

/** The freeze in force, if any. */
export function currentFreeze(r: Reads): FreezeRecord | undefined {
  return r.all(FREEZES).find((f) => !f.unfrozen);
}

/** The fact the send claim and the verification callback decide on. */
export interface FrozenFact {
  by: string;
  reason: string;
}

export function frozenFact(r: Reads): FrozenFact | undefined {
  const f = currentFreeze(r);
  return f ? { by: f.by, reason: f.reason } : undefined;
}
