/**
 * The send and its answer: the claim (approved -> executing, durable before the wallet call;
 * held by the freeze or a hold, refused by the balance, or judged again under the policy in
 * force first), a pending request judged again after a policy change, and the wallet's answer
 * to the one call.
 */
import {
  factsAsRecorded,
  missingWords,
  recheck,
  valuationNow,
  waitingAgainNote,
  type Hold,
  type RecheckFacts,
} from '../recheck.js';
import type { Step } from '../rule-table.js';
import type { Valuation } from '../../prices/types.js';
import { listRef } from '../../screening/list.js';

import { about, checkBalance } from '../rules.js';
import { claimRefusedOnHold } from '../hold/decide.js';
import { SYSTEM, type MissingApprovals, type WithdrawalRequest, type WithdrawalResultRecord } from '../types.js';
import { answerMismatches, classifySendError, type SendOutcome } from '../wallet-answer.js';
import type { DecideContext, Decision, WithdrawalCommand } from './types.js';
import { iso, transition, unchanged } from './transition.js';

export function decideClaim(
  command: Extract<WithdrawalCommand, { type: 'claim-for-sending' }>,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision {
  const at = iso(ctx.now);
  if (req?.state !== 'approved') return unchanged(req);
  // A limit hold is the table's to judge again below (the window may have room now); other holds wait for an admin.
  const onHold = req.hold?.kind === 'limit' ? undefined : claimRefusedOnHold(req, at);
  if (onHold) return onHold;
  // Judged by the rule table with the facts of this moment: the policy in force, the value at the policy
  // price now, the limits' windows, the freeze (a move into a higher tier waits for the approvals it now needs).
  // The value is read here, in the claim's commit, when the shell gives the cache: the sender's own read came
  // before its awaits (group look-ups, the balance), and a price may have turned unknown since.
  const valuation = ctx.prices ? valuationNow(req, ctx.prices) : command.valuation;
  const again = decideRecheck(
    req,
    command.recheck ?? factsAsRecorded(req),
    { ...ctx, frozen: command.frozen },
    at,
    valuation,
    'send',
  );
  if (command.frozen) {
    // Held, not refused: it stays approved and is sent once two admins unfreeze.
    return {
      kind: 'noted',
      audit: {
        at,
        actor: SYSTEM,
        action: 'send_held',
        subject: req.id,
        details: { ...about(req), reason: 'sends are frozen', frozenBy: command.frozen.by },
      },
    };
  }
  if (again.kind !== 'passes') return again;
  const limits = again.holds.filter((h) => h.until === 'release');
  if (limits.length) {
    // A limit would be crossed now: held, never sent, until the window makes room or an admin releases it.
    if (req.hold?.kind === 'limit') return unchanged(req);
    const status = limits.map((h) => h.message).join('; ');
    return {
      kind: 'changed',
      next: {
        ...again.next,
        hold: { kind: 'limit', original: req.id, status, at, rules: limits.map((h) => h.rule) },
      },
      audit: {
        at,
        actor: SYSTEM,
        action: 'hold',
        subject: req.id,
        details: { ...about(req), reason: `held: ${status}`, rules: limits.map((h) => h.rule) },
      },
      event: 'held',
    };
  }
  const short = checkBalance(command.balance, req);
  if (short) {
    const message = `Not sent: ${short.message.charAt(0).toLowerCase()}${short.message.slice(1)}`;
    return {
      kind: 'changed',
      // As the policy in force counts it (a re-check may have changed its tier and approvals).
      next: transition(again.next, 'failed', SYSTEM, at, message, { error: { kind: 'not_sent', message } }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'result',
        subject: req.id,
        details: { ...about(req), outcome: 'failed', rule: 'balance', balance: command.balance, reason: message },
      },
      event: 'failed',
    };
  }
  // A limit hold the window has made room for is lifted by this claim (its history says so).
  const { hold: _lifted, ...unheld } = again.next;
  const next = req.hold?.kind === 'limit' ? unheld : again.next;
  return {
    kind: 'changed',
    next: transition(
      next,
      'executing',
      SYSTEM,
      at,
      req.hold?.kind === 'limit' ? 'the limit has room again' : undefined,
      {
        sendStartedAt: at,
      },
    ),
    audit: {
      at,
      actor: SYSTEM,
      action: 'send',
      subject: req.id,
      details: {
        merchantReference: req.merchantReference,
        amount: req.amount,
        currency: req.currency,
        network: req.network,
        destination: req.destination,
        ...(valuation ? { value: valuation } : {}),
        ...(again.changed ? { recheckedUnder: 'the policy in force', approvals: again.next.approvals.length } : {}),
      },
    },
    event: 'executing',
  };
}

export function decidePolicyRecheck(
  command: Extract<WithdrawalCommand, { type: 'recheck' }>,
  req: WithdrawalRequest | undefined,
  ctx: DecideContext,
): Decision {
  const at = iso(ctx.now);
  // A batch row is approved only with its batch, never on its own.
  if (req?.state !== 'pending' || req.batch) return unchanged(req);
  const again = decideRecheck(req, command.facts, ctx, at, command.valuation, 'approve');
  if (again.kind !== 'passes') return again;
  if (!again.changed) return unchanged(req);
  // Complete under the policy in force (it asks for fewer approvals now): approved, then sent by the shell.
  return {
    kind: 'changed',
    next: transition(again.next, 'approved', SYSTEM, at, 'approvals complete under the policy in force'),
    audit: {
      at,
      actor: SYSTEM,
      action: 'policy_recheck_approved',
      subject: req.id,
      details: { ...about(req), approvals: again.next.approvals.length, required: again.next.tier.approvals },
    },
    event: 'approved',
  };
}

/**
 * A request judged again under the policy in force: refused (rejected by the policy, with the
 * reason on the card), back to waiting for what is missing (`reopened`), or `passes` for the
 * caller to carry on with the request as the policy in force counts it.
 */
export function decideRecheck(
  req: WithdrawalRequest,
  facts: RecheckFacts,
  ctx: DecideContext & { frozen?: { by: string; reason: string } | undefined },
  at: string,
  valuation: Valuation | undefined,
  step: Step,
): Decision | { kind: 'passes'; next: WithdrawalRequest; changed: boolean; holds: Hold[] } {
  const r = recheck(req, ctx, facts, valuation, step);
  if (r.kind === 'passes') return r;
  if (r.kind === 'refused') {
    // A destination sanctioned since the request is stopped by the law, not by the policy: said so, and kept on the request.
    const sanctioned = r.rule === 'sanctions';
    const reason = sanctioned
      ? `Stopped: ${r.reason}.`
      : `No longer allowed by the treasury policy in force: ${r.reason}`;
    const list = ctx.screening?.list;
    const stop =
      sanctioned && step !== 'request'
        ? {
            sanctioned: {
              at,
              step,
              reason: r.reason,
              ...(list ? { list: { date: list.date, sha256: list.sha256 } } : {}),
            },
          }
        : {};
    return {
      kind: 'changed',
      next: transition(req, 'rejected', SYSTEM, at, reason, { rejection: { user: SYSTEM, at, reason }, ...stop }),
      audit: {
        at,
        actor: SYSTEM,
        action: sanctioned ? 'sanctions_stop' : 'policy_recheck_refused',
        subject: req.id,
        details: {
          ...about(req),
          reason,
          ...(sanctioned ? { step, ...(list ? { list: listRef(list) } : {}) } : {}),
        },
      },
      event: 'rejected',
    };
  }
  if (
    req.state === 'pending' &&
    JSON.stringify([req.tier, req.approvals, req.allowlist.status]) ===
      JSON.stringify([r.next.tier, r.next.approvals, r.next.allowlist.status])
  )
    return unchanged(req);
  if (req.batch) return batchRowNeedsReapproval(req, r.missing, at);
  // Waiting again: with time to gather what is missing, and a fresh reminder.
  const expiresAt =
    req.state === 'approved'
      ? iso(Math.max(Date.parse(req.expiresAt), ctx.now + ctx.policy.withdrawals.expires_after))
      : req.expiresAt;
  const { reminderSentAt: _reminded, ...rest } = r.next;
  // Plain words here (people named by id); the thread line words the same data with mentions.
  const note = waitingAgainNote(r.missing, plainId);
  return {
    kind: 'changed',
    next: transition(rest, 'pending', SYSTEM, at, note, { expiresAt }, { missing: r.missing }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'policy_recheck_waits',
      subject: req.id,
      details: {
        ...about(req),
        missing: missingWords(r.missing, plainId),
        needs: r.missing,
        ...(valuation ? { value: valuation } : {}),
        approvals: r.next.approvals.length,
        required: r.next.tier.approvals,
      },
    },
    event: 'reopened',
  };
}

const plainId = (id: string) => id;

/**
 * A batch row the policy in force asks more approvals of: never reopened on its own (that would
 * let it go on one approval, past a Stop). It fails, not sent, and the batch card lists it with
 * the reason: the batch needs approving again, as a new batch.
 */
function batchRowNeedsReapproval(req: WithdrawalRequest, missing: MissingApprovals, at: string): Decision {
  const message = `Not sent: the batch needs re-approval, the treasury policy in force now needs ${missingWords(missing, plainId)}`;
  return {
    kind: 'changed',
    next: transition(req, 'failed', SYSTEM, at, message, { error: { kind: 'not_sent', message } }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'policy_recheck_refused',
      subject: req.id,
      details: { ...about(req), batch: req.batch?.id ?? null, needs: missing, reason: message },
    },
    event: 'failed',
  };
}

export function decideSendOutcome(
  requestId: string,
  outcome: SendOutcome,
  cur: WithdrawalRequest | undefined,
  at: string,
): Decision {
  if (cur?.state !== 'executing') {
    // Settled meanwhile (the service asked after a notification, or an admin): the answer goes to the audit log only.
    const details = outcome.ok
      ? { serviceReference: outcome.answer.serviceReference, amount: outcome.answer.amount }
      : { error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) };
    return {
      kind: 'noted',
      audit: {
        at,
        actor: SYSTEM,
        action: 'result',
        subject: requestId,
        details: { ignored: true, state: cur?.state ?? null, ...details },
      },
    };
  }
  if (outcome.ok) {
    const { answer } = outcome;
    const mismatches = answerMismatches(cur, answer);
    const result: WithdrawalResultRecord = {
      source: 'wallet',
      serviceReference: answer.serviceReference,
      amount: answer.amount,
      amountRequested: answer.amountRequested,
      fee: answer.fee,
      feeCurrency: answer.feeCurrency?.name ?? null,
      transactionHash: cur.confirmation?.transactionHash ?? null,
      ...(mismatches.length ? { mismatches } : {}),
    };
    return {
      kind: 'changed',
      next: transition(cur, 'completed', SYSTEM, at, undefined, { result }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'result',
        subject: cur.id,
        details: { ...about(cur), outcome: 'completed', ...result, amount: cur.amount, delivered: result.amount },
      },
      event: 'completed',
    };
  }
  const c = classifySendError(outcome.error);
  if (c.state === 'unknown') {
    return {
      kind: 'changed',
      next: transition(cur, 'unknown', SYSTEM, at, c.message, { unknownReason: c.message }),
      audit: {
        at,
        actor: SYSTEM,
        action: 'unknown',
        subject: cur.id,
        details: { ...about(cur), reason: c.message, errorKind: c.kind },
      },
      event: 'unknown',
    };
  }
  return {
    kind: 'changed',
    next: transition(cur, 'failed', SYSTEM, at, c.message, { error: { kind: c.errorKind, message: c.message } }),
    audit: {
      at,
      actor: SYSTEM,
      action: 'result',
      subject: cur.id,
      details: { ...about(cur), outcome: 'failed', errorKind: c.kind, reason: c.message },
    },
    event: 'failed',
  };
}
