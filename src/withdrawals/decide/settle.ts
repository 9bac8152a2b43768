/**
 * An unknown outcome settled: by a transaction-list record, by the service's status (through
 * `settledAsReported`, which settle-by-status.ts shares), or by an admin.
 */
import { about, refused, stateWords } from '../rules.js';
import { SYSTEM, type WithdrawalRequest, type WithdrawalResultRecord } from '../types.js';
import type { ListedTransaction } from '../wallet-answer.js';
import type { Decision, WithdrawalCommand } from './types.js';
import { transition, unchanged } from './transition.js';

export function decideReconcile(hit: ListedTransaction, cur: WithdrawalRequest | undefined, at: string): Decision {
  // A record whose status we cannot read proves it reached the service, not how it ended.
  if (cur?.state !== 'unknown' || hit.status === 'unknown') return unchanged(cur);
  const details = { reference: hit.reference, status: hit.status, delivered: hit.amount, transactionHash: hit.hash };
  const result: WithdrawalResultRecord = {
    source: 'reconcile',
    serviceReference: null,
    amount: hit.amount,
    fee: null,
    feeCurrency: null,
    transactionHash: hit.hash,
  };
  return settledAsReported(cur, at, {
    failed: hit.status === 'failed',
    result,
    failedNote: 'the transaction list shows it failed',
    failedMessage: 'The wallet service received the withdrawal and lists it as failed.',
    completedNote: 'found in the transaction list',
    details,
  });
}

/**
 * An unknown outcome settled by what the wallet service reports of it (its status for our
 * reference, or its transaction list): completed, or failed as the service says, audited as a
 * reconciliation. One shape for both sources, so the card and audit read the same.
 */
export function settledAsReported(
  cur: WithdrawalRequest,
  at: string,
  o: {
    failed: boolean;
    result: WithdrawalResultRecord;
    failedNote: string;
    failedMessage: string;
    completedNote: string;
    details: Record<string, unknown>;
  },
): Decision {
  const next = o.failed
    ? transition(cur, 'failed', SYSTEM, at, o.failedNote, {
        error: { kind: 'reported_failed', message: o.failedMessage },
        result: o.result,
      })
    : transition(cur, 'completed', SYSTEM, at, o.completedNote, { result: o.result });
  return {
    kind: 'changed',
    next,
    audit: {
      at,
      actor: SYSTEM,
      action: 'reconcile',
      subject: cur.id,
      details: { ...about(cur), outcome: next.state, ...o.details },
    },
    event: next.state === 'completed' ? 'completed' : 'failed',
  };
}

export function decideResolve(
  c: Extract<WithdrawalCommand, { type: 'resolve-unknown' }>,
  cur: WithdrawalRequest | undefined,
  at: string,
): Decision {
  if (!cur) return refused('not_found', 'There is no such withdrawal request.');
  if (!c.isAdmin)
    return refused('not_admin', 'Only treasury admins can resolve a withdrawal whose outcome is unknown.');
  if (cur.state !== 'unknown')
    return refused(
      'not_unknown',
      `Only a request whose outcome is unknown can be resolved: this one is ${stateWords(cur.state)}.`,
    );
  const text = c.note.trim();
  if (!text) return refused('note_required', 'Say how you established the outcome (a note is required).');
  const resolution = { by: c.admin, at, outcome: c.outcome, note: text };
  const next =
    c.outcome === 'sent'
      ? transition(cur, 'completed', c.admin, at, text, {
          resolution,
          result: {
            source: 'admin',
            serviceReference: null,
            amount: cur.amount,
            fee: null,
            feeCurrency: null,
            transactionHash: cur.confirmation?.transactionHash ?? null,
          },
        })
      : transition(cur, 'failed', c.admin, at, text, {
          resolution,
          error: { kind: 'admin_not_sent', message: `Resolved by an admin as not sent: ${text}` },
        });
  return {
    kind: 'changed',
    next,
    audit: {
      at,
      actor: c.admin,
      action: 'resolve',
      subject: cur.id,
      details: { ...about(cur), outcome: c.outcome, note: text },
    },
    event: 'resolved',
  };
}
