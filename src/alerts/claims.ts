/**
 * A notification is a claim (ARCHITECTURE.md invariant 14): the pure decisions of holding one
 * to the wallet's history, for every kind alike. Which list record is the claim's own, whether
 * it agrees, when a miss has lasted long enough to flag, and where a withdrawal this app made
 * stands. The I/O around them is in verify.ts (by hash) and sweep.ts (deposits in bulk); what
 * follows from a verdict is in posting.ts.
 */
import { Decimal } from 'decimal.js';
import { CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { KIND_RULES, type ListedType } from '../alert-kinds.js';
import type { Alert, Mismatch } from './types.js';

/** What the wallet's history says of a transaction, as compared with a claim. */
export interface Listed {
  /** Absent when the record's type cannot be read: then it is no kind's record. */
  type?: ListedType;
  reference?: string;
  amount?: string;
  currency?: string;
  network?: string;
  status?: string;
  hashUrl?: string;
  addressUrl?: string;
  /** The record's sender (a deposit's: screened against the sanctions list). */
  fromAddress?: string;
}

/**
 * A withdrawal request of this app's, as far as its alert needs it. Its notification only
 * prompts the app to ask the service (src/withdrawals): the request's settled outcome is the
 * service's own answer, and the alert follows that, never the notification's status.
 */
export interface OurWithdrawalView {
  state: string;
  confirmation?: { status: string } | undefined;
  result?: { serviceReference: string | null } | undefined;
}

export interface OurWithdrawal {
  /** Undefined while the request is not settled (waiting, sending, outcome unknown). */
  settled?: 'CONFIRMED' | 'FAILED';
  /** What the history's record of it may be listed under: our reference, and the service's own once it gave one. */
  references: readonly string[];
}

/** Request states in which no money left for it, and none will. */
const NOTHING_SENT = new Set(['failed', 'rejected', 'expired']);

export function ourWithdrawal(merchantReference: string, r: OurWithdrawalView): OurWithdrawal {
  const service = r.result?.serviceReference;
  const references = service ? [merchantReference, service] : [merchantReference];
  const s = r.confirmation?.status;
  // "Never executed" that the service itself reports after all: its word, never "failed" (that would
  // invite paying again); a status it has not settled yet leaves the alert checking.
  if (NOTHING_SENT.has(r.state) && s !== undefined)
    return s === 'CONFIRMED' || s === 'FAILED' ? { settled: s, references } : { references };
  if (NOTHING_SENT.has(r.state)) return { settled: 'FAILED', references };
  // Accepted by the service: settled once the service itself says how the transfer ended.
  if (r.state === 'completed' && (s === 'CONFIRMED' || s === 'FAILED')) return { settled: s, references };
  return { references };
}

/** The status an alert stands at: a withdrawal of ours follows its request once settled, never its notifications. */
export function standing(a: Pick<Alert, 'status' | 'verification'>): string | undefined {
  return a.verification.request?.settled ?? a.status;
}

const canonical = (members: typeof CURRENCIES | typeof NETWORKS, v: string) =>
  lookup(members, v)?.name ?? v.trim().toUpperCase();

function sameAmount(a: string, b: string): boolean {
  try {
    return new Decimal(a).eq(new Decimal(b));
  } catch {
    return false;
  }
}

/** Fields both name and name differently. The amount may match the claim's amount or its total (amount + fee). */
export function mismatches(
  claim: Pick<Alert, 'amount' | 'totalAmount' | 'currency' | 'network'>,
  l: Listed,
): Mismatch[] {
  const out: Mismatch[] = [];
  if (claim.amount && l.amount && !sameAmount(claim.amount, l.amount)) {
    if (!claim.totalAmount || !sameAmount(claim.totalAmount, l.amount))
      out.push({ field: 'amount', claimed: claim.amount, listed: l.amount });
  }
  if (claim.currency && l.currency && canonical(CURRENCIES, claim.currency) !== canonical(CURRENCIES, l.currency))
    out.push({ field: 'currency', claimed: claim.currency, listed: l.currency });
  if (claim.network && l.network && canonical(NETWORKS, claim.network) !== canonical(NETWORKS, l.network))
    out.push({ field: 'network', claimed: claim.network, listed: l.network });
  return out;
}

/**
 * Whether a record listed under the claim's hash is this transaction's at all: of a type its
 * kind is listed as, and for a withdrawal of ours, under its reference. Another one (a deposit
 * that happens to carry the hash a forged withdrawal names, another payout of the same batch)
 * says nothing of this claim: the history does not show it.
 */
function isRecordOf(a: Pick<Alert, 'kind'>, l: Listed, ours: OurWithdrawal | undefined): boolean {
  if (!l.type || !KIND_RULES[a.kind].listedAs.includes(l.type)) return false;
  return !ours || (!!l.reference && ours.references.includes(l.reference));
}

export type Verdict =
  | { kind: 'match'; listed: Listed }
  | { kind: 'mismatch'; listed: Listed; diff: Mismatch[] }
  /** A withdrawal of ours the history shows as claimed, whose request has not settled yet: asked again later. */
  | { kind: 'waiting'; listed: Listed }
  | { kind: 'miss' };

/**
 * The history's answer to a claim, from the records listed under its hash. Confirmed only when
 * one is the claim's own record and every field agrees (and for ours, once its request settled);
 * the claim's own record naming another amount, currency or network is a contradiction.
 */
export function judge(
  a: Pick<Alert, 'kind' | 'amount' | 'totalAmount' | 'currency' | 'network'>,
  records: readonly Listed[],
  ours?: OurWithdrawal,
): Verdict {
  const own = records.filter((l) => isRecordOf(a, l, ours));
  // Every field on both sides: a claim or a record without its amount, currency or network cannot be
  // said to match it, so it is never confirmed on it (it stays checking, and is flagged after the grace).
  const complete = (l: Listed) => !!(a.amount && a.currency && a.network && l.amount && l.currency && l.network);
  const agreeing = own.find((l) => complete(l) && mismatches(a, l).length === 0);
  if (agreeing)
    return ours && !ours.settled ? { kind: 'waiting', listed: agreeing } : { kind: 'match', listed: agreeing };
  const first = own.find((l) => mismatches(a, l).length > 0);
  return first ? { kind: 'mismatch', listed: first, diff: mismatches(a, first) } : { kind: 'miss' };
}

/** When a notification first said this transaction was confirmed (the grace runs from then). */
export function reportedConfirmedAt(a: Pick<Alert, 'history' | 'status'>): number | undefined {
  if (a.status !== 'CONFIRMED') return undefined;
  return a.history.find((h) => h.applied && h.status === 'CONFIRMED')?.at;
}

/** Reported confirmed, still not backed by the history `graceMs` later, and not flagged yet: flag it now. */
export function overdue(a: Pick<Alert, 'history' | 'status' | 'verification'>, graceMs: number, now: number): boolean {
  const reported = reportedConfirmedAt(a);
  return reported !== undefined && a.verification.flaggedAt === undefined && now - reported >= graceMs;
}
