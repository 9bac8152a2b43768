/**
 * Where batch payouts are kept, and their expiry: a pending batch past its expiry becomes expired in
 * one commit (the job), so its rows stop counting in the limits' windows.
 */
import { appendAudit } from '../audit/log.js';
import { collection, type Tx } from '../store/index.js';
import type { BatchEventType } from './events.js';
import type { Batch } from './types.js';

/** Every batch payout by id; the persisted name must never change. */
export const BATCHES = collection<Batch>('batches');

/** Pending batches past their expiry: expired, in one commit (the job), so they stop counting in the windows. */
export function expireIn(tx: Tx, t: number, emit: (tx: Tx, type: BatchEventType, b: Batch) => void): Batch[] {
  return tx.all(BATCHES).flatMap((b) => {
    if (b.state !== 'pending' || t < Date.parse(b.expiresAt)) return [];
    const next: Batch = { ...b, state: 'expired', finishedAt: new Date(t).toISOString() };
    tx.put(BATCHES, b.id, next);
    appendAudit(tx, {
      at: new Date(t).toISOString(),
      actor: 'system',
      action: 'batch_expire',
      subject: b.id,
      details: { sha256: b.sha256, rows: b.rows.length, approvals: b.approvals.length, required: b.tier.approvals },
    });
    emit(tx, 'expired', next);
    return [next];
  });
}
