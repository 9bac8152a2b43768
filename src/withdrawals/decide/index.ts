/**
 * The withdrawal rules as one pure function: `decide(command, request, context)` returns a
 * refusal (the reason and the words a person sees), or the next state of the request with
 * its audit entry and the event to announce, or "nothing to do". No store, no clock, no
 * network: whatever needs I/O (group membership, the wallet's answer, the transaction list,
 * the current time) is resolved by the shell (service/) and passed in as a fact, so every
 * rule can be tested in microseconds and exists here only.
 *
 * State is stored, not event-sourced, so there is no separate `evolve`: the decision carries
 * the next state itself (the shell writes it, the audit entry and the notifications in one
 * commit). The shape follows the decider pattern: commands and decisions are discriminated
 * unions, and each switch over them is exhaustive (`never`).
 *
 * This file is the entry (the shared types are in types.ts, a leaf); each family of commands is decided in its own
 * module: request.ts, approval.ts (approve, reject), send.ts (the claim, the policy re-check,
 * the wallet's answer), lifecycle.ts (expiry, reminders, startup), settle.ts (unknown outcomes
 * settled), and outside this folder notice.ts, settle-by-status.ts and hold/decide.ts.
 */
import { decideByStatus } from '../settle-by-status.js';
import { decideNotice, decideNoticeVerdict, decideServiceWord } from '../notice.js';
import { decideHoldRepeat, decideSettleHold } from '../hold/decide.js';
import type { DecisionReason, RequestRule, WithdrawalRequest } from '../types.js';
import type { Decision, DecideContext, WithdrawalCommand } from './types.js';
import { decideApprove, decideReject } from './approval.js';
import { decideExpire, decideExpireUnsent, decideMarkUnknown, decideRemind, decideStopBatchRow } from './lifecycle.js';
import { decideRequest } from './request.js';
import { decideClaim, decidePolicyRecheck, decideSendOutcome } from './send.js';
import { decideReconcile, decideResolve } from './settle.js';
import { iso } from './transition.js';

export { recoveryAction, type RecoveryAction } from './lifecycle.js';
export { settledAsReported } from './settle.js';
export type {
  AuditRecord,
  Decision,
  DecideContext,
  ServiceWord,
  SettleHoldCommand,
  WithdrawalCommand,
} from './types.js';

type ReasonOf<C extends WithdrawalCommand> = C extends { type: 'request' } ? RequestRule : DecisionReason;

export function decide<C extends WithdrawalCommand>(
  command: C,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision<ReasonOf<C>>;
export function decide(
  command: WithdrawalCommand,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision<RequestRule | DecisionReason> {
  const at = iso(ctx.now);
  switch (command.type) {
    case 'request':
      return decideRequest(command, ctx);
    case 'approve':
      return decideApprove(command, req, ctx);
    case 'reject':
      return decideReject(command, req, ctx);
    case 'claim-for-sending':
      return decideClaim(command, req, ctx);
    case 'recheck':
      return decidePolicyRecheck(command, req, ctx);
    case 'record-send-outcome':
      return decideSendOutcome(command.requestId, command.outcome, req, at);
    case 'expire':
      return decideExpire(req, ctx);
    case 'expire-unsent':
      return decideExpireUnsent(req, ctx);
    case 'remind':
      return decideRemind(req, ctx);
    case 'mark-unknown-at-startup':
      return decideMarkUnknown(req, ctx);
    case 'reconcile':
      return decideReconcile(command.found, req, at);
    case 'settle-by-status':
      return decideByStatus(command.status, req, {
        now: ctx.now,
        graceMs: ctx.policy.withdrawals.not_found_grace,
      });
    case 'resolve-unknown':
      return decideResolve(command, req, at);
    case 'notice':
      return decideNotice(command, req, at);
    case 'service-word':
      return decideServiceWord(command.word, req, at);
    case 'notice-verdict':
      return decideNoticeVerdict(command.word, req, {
        now: ctx.now,
        graceMs: ctx.policy.withdrawals.not_found_grace,
      });
    case 'hold-repeat':
      return decideHoldRepeat(req, command.original, at, command.basis);
    case 'settle-hold':
      return decideSettleHold(command, req, at);
    case 'stop-batch-row':
      return decideStopBatchRow(command.admin, req, at);
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled withdrawal command ${JSON.stringify(unhandled)}`);
    }
  }
}
