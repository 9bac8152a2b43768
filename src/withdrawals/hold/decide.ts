/**
 * "New request with the same details" and the double payment it could cause (pure; decide/index.ts
 * routes the commands here, the shell passes the facts).
 *
 * A request the wallet service never executed (settle-by-status.ts) may be requested again: the
 * new request records which one it repeats (`repeatOf`), or is linked to it when retyped by hand
 * with the same destination, amount, currency, network and client wallet (`repeatLinked`).
 *
 * The FAMILY (the root reached through `repeatOf`, and every request whose chain leads to it) is
 * ONE payout. A new repeat is allowed only while no member is pending, approved, executing,
 * unknown or completed, and no member was reported by the service after we found it never
 * executed (`repeatRefusal`; the card offers its button on the same predicate). A request retyped
 * by hand is never refused for its payout: there it is made already on hold (`retypedHold`), as it
 * may be a separate payout (a recurring one) an admin can send anyway.
 *
 * A withdrawal webhook is only a claim (notice.ts: unsigned, anyone who learns the URL can post
 * one). Any notification for a never-executed request, whatever its status, makes the rest of
 * its family wait as a PRECAUTION: every other member not yet claimed for sending (pending,
 * approved) is put on hold (`notified`), nothing more; the wallet service is asked. Only the
 * SERVICE's answer that it has that request (any status but NotFound, from its status for our
 * reference or its transaction list) is the report that makes it dangerous: every other member
 * (and, belt and braces, the members of any other payout of the same details that also began
 * never executed: `holdTargets`) not yet claimed is held (`original_reported_sent`, replacing a
 * precaution), and every member already claimed (executing, unknown, completed) is flagged as a
 * possible double payment, once. So a forged notification can at worst hold a payout until an
 * admin releases it; it can neither cause a double payment (nothing is settled or unheld by it)
 * nor lift the hold the service's own report puts (a release of a precaution does not count
 * for the report). A held request is refused by the send claim until an admin releases it
 * ("Send anyway", with a reason; past its expiry it expires instead, nothing sent) or rejects
 * it. Everything is on the stored request, so a restart keeps it.
 * The family queries are in family.ts, the words of refusals and audit entries in words.ts.
 */
import type { Decision, SettleHoldCommand } from '../decide/types.js';
import { about, refused, stateWords } from '../rules.js';
import { SYSTEM, type RepeatHold, type WithdrawalRequest, type WithdrawalState } from '../types.js';
import {
  familyOf,
  isNeverExecuted,
  isNeverExecutedContradicted,
  retypedMatches,
  UNDER_WAY,
  type Details,
} from './family.js';
import {
  contradictedRefusalWords,
  NOTIFIED_HOLD_WORDS,
  reportedStatusWords,
  retypedHoldWords,
  shortRef,
} from './words.js';

/**
 * The refusal of a new request that repeats `original` (`all`: the stored requests), or undefined
 * when it may. The one predicate of the domain's refusal and of the card's button.
 */
export function repeatRefusal(
  original: WithdrawalRequest | undefined,
  all: readonly WithdrawalRequest[],
): { kind: 'refused'; reason: 'repeat'; message: string } | undefined {
  if (!original)
    return refused(
      'repeat',
      'Only a request the wallet service never executed can be requested again with the same details.',
    );
  const family = familyOf(all, original);
  const reported = family.find(isNeverExecutedContradicted);
  if (reported) return refused('repeat', contradictedRefusalWords(reported));
  if (!isNeverExecuted(original))
    return refused(
      'repeat',
      'Only a request the wallet service never executed can be requested again with the same details.',
    );
  const live = family.find((m) => UNDER_WAY.includes(m.state));
  if (live)
    return refused(
      'repeat',
      `A request for this payout already exists (ref \`${shortRef(live)}\`, ${stateWords(live.state)}): ${live.state === 'completed' ? 'it was paid, so it must not be paid again.' : 'use that one; the same payout must not be paid twice.'}`,
    );
  return undefined;
}

/** Whether "New request with the same details" may be offered on `r` (the same predicate the domain refuses with). */
export const mayRepeat = (r: WithdrawalRequest, all: readonly WithdrawalRequest[]): boolean => !repeatRefusal(r, all);

/**
 * A request retyped by hand (linked by its details) is never refused because of its payout: where
 * "New request with the same details" would be refused (a request of that payout reported after
 * "never executed", or one under way), it is created ALREADY ON HOLD, for an admin to send anyway
 * (a separate payout, a recurring one say) or reject. Every matching payout counts, not only the
 * one it is linked to. Undefined: nothing holds it.
 */
export function retypedHold(
  details: Details,
  existing: readonly WithdrawalRequest[],
  at: string,
): RepeatHold | undefined {
  const families = retypedMatches(details, existing).map((m) => familyOf(existing, m));
  const reported = families.flat().find(isNeverExecutedContradicted);
  // `status`: the service's word; '' when only a notification named it (a claim, never shown as the service's).
  if (reported) return { kind: 'retyped', original: reported.id, status: reported.confirmation?.status ?? '', at };
  const live = families.flat().find((m) => UNDER_WAY.includes(m.state));
  if (live) return { kind: 'retyped', original: live.id, status: '', earlierState: live.state, at };
  return undefined;
}

function decidePrecautionHold(
  repeat: WithdrawalRequest | undefined,
  original: WithdrawalRequest,
  at: string,
): Decision {
  // Only one not yet claimed can wait; one already sent is flagged only on the service's word. A limit
  // hold gives way: the payout question is an admin's, and the claim judges the limit again anyway.
  if (
    !repeat ||
    (repeat.hold && repeat.hold.kind !== 'limit') ||
    repeat.doublePaymentRisk ||
    !HOLDABLE.includes(repeat.state)
  )
    return { kind: 'unchanged', request: repeat };
  if (repeat.holdReleased?.original === original.id) return { kind: 'unchanged', request: repeat };
  const status = original.notice?.status ?? '';
  return {
    kind: 'changed',
    next: { ...repeat, hold: { kind: 'notified', original: original.id, status, at } },
    audit: {
      at,
      actor: SYSTEM,
      action: 'hold',
      subject: repeat.id,
      details: {
        ...about(repeat),
        original: original.id,
        originalReference: original.merchantReference,
        claimed: status || null,
        state: repeat.state,
        precaution: true,
        reason: NOTIFIED_HOLD_WORDS,
      },
    },
    // The card says it (event `notice`: the card updates), but nobody is called on a claim alone:
    // the service's report that may follow calls the admins (`held`), once; its NotFound calls them
    // about a notification that may be forged (notice.ts).
    event: 'notice',
  };
}

/** Not yet claimed for sending: a hold still keeps it from being sent. */
const HOLDABLE: readonly WithdrawalState[] = ['pending', 'approved'];
/** Claimed, maybe paid: too late to hold. */
const MAYBE_PAID: readonly WithdrawalState[] = ['executing', 'completed', 'unknown'];

/**
 * Another member of `original`'s family, "never executed" until now. `service`: the service has
 * just answered that it has `original` (`confirmation.status`): held, or flagged as a possible
 * double payment. `notice`: only a notification claims it (`notice.status`, outside text): held
 * as a precaution if not yet claimed for sending, nothing more (a claim proves nothing).
 */
export function decideHoldRepeat(
  repeat: WithdrawalRequest | undefined,
  original: WithdrawalRequest,
  at: string,
  basis: 'notice' | 'service' = 'service',
): Decision {
  if (basis === 'notice') return decidePrecautionHold(repeat, original, at);
  // Held or flagged already; or released by an admin who weighed this very report. A report of
  // ANOTHER member is a new danger: a released request is held again for it. A hold for a weaker
  // reason (a retype held only because an earlier one was under way, or a precaution for a mere
  // notification) is held anew for the service's report: the admin deciding must read the
  // stronger reason (and be called). A release of a precaution never excuses the report.
  // A limit hold is weaker too: it lifts by itself once the window has room, and the claim judges the
  // limit again after an admin releases the payout's hold.
  const weakerHold =
    (repeat?.hold?.kind === 'retyped' && repeat.hold.earlierState !== undefined) ||
    repeat?.hold?.kind === 'notified' ||
    repeat?.hold?.kind === 'limit';
  if (
    !repeat ||
    (repeat.hold && !weakerHold) ||
    repeat.doublePaymentRisk ||
    (repeat.holdReleased?.original === original.id && repeat.holdReleased.kind !== 'notified')
  )
    return { kind: 'unchanged', request: repeat };
  const status = original.confirmation?.status ?? '';
  const words = `the wallet service now reports the earlier request of the same payout (${reportedStatusWords(status)}), after it had no record of it: any report means the service has that request, so it may be paid`;
  const details = {
    ...about(repeat),
    original: original.id,
    originalReference: original.merchantReference,
    status,
    state: repeat.state,
  };
  if (HOLDABLE.includes(repeat.state)) {
    return {
      kind: 'changed',
      next: { ...repeat, hold: { kind: 'original_reported_sent', original: original.id, status, at } },
      audit: {
        at,
        actor: SYSTEM,
        action: 'hold',
        subject: repeat.id,
        details: {
          ...details,
          reason: words,
        },
      },
      event: 'held',
    };
  }
  if (MAYBE_PAID.includes(repeat.state)) {
    return {
      kind: 'changed',
      next: { ...repeat, doublePaymentRisk: { original: original.id, at, status } },
      audit: {
        at,
        actor: SYSTEM,
        action: 'double_payment_risk',
        subject: repeat.id,
        details: {
          ...details,
          reason: `already ${stateWords(repeat.state)} when ${words}: both may have been paid`,
        },
      },
      event: 'double-payment-risk',
    };
  }
  // Failed, rejected or expired: nothing left, nothing will.
  return { kind: 'unchanged', request: repeat };
}

export type { SettleHoldCommand } from '../decide/types.js';

/** The words an admin reads when a release came after the request's expiry (it expired instead). */
export const RELEASED_AFTER_EXPIRY =
  'This request expired before it was released: its approvals are too old, so it was not sent and is now expired. If the payout is still due, make a new request.';

/** An admin's decision on a held repeat. */
export function decideSettleHold(c: SettleHoldCommand, cur: WithdrawalRequest | undefined, at: string): Decision {
  if (!cur) return refused('not_found', 'There is no such withdrawal request.');
  if (!c.isAdmin) return refused('not_admin', 'Only treasury admins can decide on a request on hold.');
  if (!cur.hold) return refused('not_held', `This request is not on hold: it is ${stateWords(cur.state)}.`);
  if (!HOLDABLE.includes(cur.state))
    return refused('not_held', `This request is no longer on hold: it is ${stateWords(cur.state)}.`);
  if (c.action === 'release' && cur.requester === c.admin)
    return refused('own_request', 'You cannot release your own withdrawal request; ask another admin.');
  const reason = c.reason.trim();
  if (!reason) return refused('reason_required', 'Say why (a reason is required).');
  const { hold, ...rest } = cur;
  const details = { ...about(cur), original: hold.original, status: hold.status, reason, state: cur.state };
  if (c.action === 'release' && Date.parse(at) >= Date.parse(cur.expiresAt)) {
    // Its approvals are old: a restart would have expired it. Nothing is sent; a new request asks again.
    const note = `released after its expiry (${cur.expiresAt}): expired, nothing was sent`;
    return {
      kind: 'changed',
      next: {
        ...cur,
        state: 'expired',
        history: [...cur.history, { at, state: 'expired', by: c.admin, note }],
      },
      audit: {
        at,
        actor: c.admin,
        action: 'expire',
        subject: cur.id,
        details: { ...details, held: true, expiresAt: cur.expiresAt, outcome: 'expired, nothing sent' },
      },
      event: 'expired',
    };
  }
  if (c.action === 'release') {
    return {
      kind: 'changed',
      next: {
        ...rest,
        // Its kind: releasing a precaution (a notification) does not excuse the service's report that may follow.
        holdReleased: { by: c.admin, at, reason, original: hold.original, kind: hold.kind },
        history: [...cur.history, { at, state: cur.state, by: c.admin, note: `hold released: ${reason}` }],
      },
      audit: { at, actor: c.admin, action: 'hold_release', subject: cur.id, details },
      event: 'released',
    };
  }
  return {
    kind: 'changed',
    // The hold stays on the record: it says why it was rejected.
    next: {
      ...cur,
      state: 'rejected',
      rejection: { user: c.admin, at, reason },
      history: [...cur.history, { at, state: 'rejected', by: c.admin, note: reason }],
    },
    audit: { at, actor: c.admin, action: 'reject', subject: cur.id, details: { ...details, held: true } },
    event: 'rejected',
  };
}

/** The send claim of a held request: refused (it stays as it is), with the reason in the audit log. */
export function claimRefusedOnHold(req: WithdrawalRequest, at: string): Decision | undefined {
  if (!req.hold) return undefined;
  return {
    kind: 'noted',
    audit: {
      at,
      actor: SYSTEM,
      action: 'send_held_repeat',
      subject: req.id,
      details: {
        ...about(req),
        original: req.hold.original,
        reason:
          req.hold.kind === 'limit'
            ? `held: ${req.hold.status}`
            : req.hold.kind === 'retyped'
              ? `on hold: ${retypedHoldWords(req.hold)}`
              : req.hold.kind === 'notified'
                ? `on hold: ${NOTIFIED_HOLD_WORDS}`
                : `on hold: the wallet service now reports the earlier request of the same payout (${reportedStatusWords(req.hold.status)}): any report means the service has that request, so it may be paid`,
      },
    },
  };
}
