/**
 * The FAMILY of a request: one payout. Its root is reached through `repeatOf`, and every request
 * whose chain leads to that root belongs to it; a request retyped by hand with the same details
 * as a never-executed one is linked to it (`retypedRepeatOf`). Pure queries over the stored
 * requests, apart from the decisions taken on them (decide.ts here), so that the Slack card and
 * the shell can ask "which payout is this, and where is it?" without the rules.
 */
import { addressFamily } from '../../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup } from '../../wallet/enums.js';
import { Dec } from '../../money/decimal.js';
import { sameAddress } from '../rules.js';
import type { WithdrawalRequest, WithdrawalState } from '../types.js';

type Reported = Pick<WithdrawalRequest, 'state' | 'error' | 'confirmation' | 'notice' | 'result'>;

const foundNeverExecuted = (r: Reported) => r.state === 'failed' && r.error?.kind === 'never_executed';

/**
 * The service never executed it (settled by its status, past the grace), and nothing has spoken
 * of it since: the service's own answer that it has it, a result, or even a notification (a
 * claim, maybe forged, but until the service answers, paying again could pay twice).
 */
export const isNeverExecuted = (r: Reported): boolean =>
  foundNeverExecuted(r) && !r.confirmation && !r.notice && !r.result;

/** Found "never executed", then the wallet service (or a notification, not yet confirmed) spoke of it: it may have been paid. */
export const isNeverExecutedContradicted = (r: Reported): boolean => foundNeverExecuted(r) && !isNeverExecuted(r);

/**
 * Whether this change is the report that makes the rest of its family dangerous: found "never
 * executed", and now the SERVICE answers that it has it (any status but NotFound).
 */
export function reportedAfterNeverExecuted(before: WithdrawalRequest, after: WithdrawalRequest): boolean {
  return foundNeverExecuted(before) && !before.confirmation && !!after.confirmation;
}

/** Whether this change is the first notification of a never-executed request: a precaution, not a report. */
export function notifiedAfterNeverExecuted(before: WithdrawalRequest, after: WithdrawalRequest): boolean {
  return isNeverExecuted(before) && !!after.notice;
}

/**
 * Every request made from `originalId` with "New request with the same details" (or linked to it
 * by its details), and those made in turn from them: all of them ask for the same payout.
 */
export function repeatsOf(all: readonly WithdrawalRequest[], originalId: string): WithdrawalRequest[] {
  const out: WithdrawalRequest[] = [];
  const seen = new Set([originalId]);
  const queue = [originalId];
  while (queue.length) {
    const id = queue.shift()!;
    for (const r of all)
      if (r.repeatOf === id && !seen.has(r.id)) {
        seen.add(r.id);
        out.push(r);
        queue.push(r.id);
      }
  }
  return out;
}

/**
 * The whole family of `r` (one payout): its root, reached through `repeatOf` (a stored link to a
 * request no longer kept ends the walk), and every request whose chain leads to that root.
 */
export function familyOf(all: readonly WithdrawalRequest[], r: WithdrawalRequest): WithdrawalRequest[] {
  const byId = new Map(all.map((x) => [x.id, x]));
  byId.set(r.id, r);
  let root = r;
  const seen = new Set([r.id]);
  while (root.repeatOf && !seen.has(root.repeatOf)) {
    const up = byId.get(root.repeatOf);
    if (!up) break;
    seen.add(up.id);
    root = up;
  }
  const members = [root, ...repeatsOf([...byId.values()], root.id)];
  return members.some((m) => m.id === r.id) ? members : [...members, r];
}

/** States in which a member of the family is (or may be) paying the payout: no other request of it may start. */
export const UNDER_WAY: readonly WithdrawalState[] = ['pending', 'approved', 'executing', 'unknown', 'completed'];

export type Details = Pick<WithdrawalRequest, 'destination' | 'amount' | 'currency' | 'network' | 'clientEmail'>;

/** The app's own address comparison (rules.ts): case-insensitive, except TRON's base58. */
function sameDestination(a: Details, b: Details): boolean {
  const currency = lookup(CURRENCIES, a.currency);
  const network = lookup(NETWORKS, a.network);
  if (!currency || !network) return a.destination === b.destination;
  return sameAddress(addressFamily(network), a.destination, b.destination);
}

/** The same destination, amount, currency, network and client wallet: the same payout retyped by hand. */
export const sameDetails = (a: Details, b: Details): boolean =>
  a.currency === b.currency &&
  a.network === b.network &&
  new Dec(a.amount).eq(b.amount) &&
  a.clientEmail.trim().toLowerCase() === b.clientEmail.trim().toLowerCase() &&
  sameDestination(a, b);

/**
 * A request typed without `repeatOf` that asks for the payout of a request the service never
 * executed (found, or since contradicted): the latest such one among `existing`, to link it to.
 * Not one whose payout a member already paid (completed): the same details typed after that are a
 * new payout (a monthly one, say), not a retry, and are not refused for ever.
 */
export function retypedRepeatOf(
  details: Details,
  existing: readonly WithdrawalRequest[],
): WithdrawalRequest | undefined {
  return retypedMatches(details, existing)[0];
}

/** Every never-executed request (found, or since contradicted) with these details, latest first (see retypedRepeatOf). */
export function retypedMatches(details: Details, existing: readonly WithdrawalRequest[]): WithdrawalRequest[] {
  return existing
    .filter(
      (r) =>
        r.state === 'failed' &&
        r.error?.kind === 'never_executed' &&
        sameDetails(details, r) &&
        !familyOf(existing, r).some((m) => m.state === 'completed'),
    )
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

/**
 * Whom a report of the never-executed `reported` puts on hold (or flags): every OTHER member of
 * its family, and, belt and braces, the members of every other payout of the same details that
 * also began with a request the service never executed (a retype linked to that one rather than
 * to this). Not any request of those details: one typed after the payout was paid is a new payout
 * (a monthly one, say), and must not be held or called a double payment.
 */
export function holdTargets(all: readonly WithdrawalRequest[], reported: WithdrawalRequest): WithdrawalRequest[] {
  const family = familyOf(all, reported);
  const ids = new Set(family.map((m) => m.id));
  const targets = family.filter((m) => m.id !== reported.id);
  for (const other of all) {
    if (ids.has(other.id) || other.state !== 'failed' || other.error?.kind !== 'never_executed') continue;
    if (!sameDetails(other, reported)) continue;
    for (const m of familyOf(all, other)) {
      if (ids.has(m.id)) continue;
      ids.add(m.id);
      targets.push(m);
    }
  }
  return targets;
}
