/**
 * The challenge a passkey signs, bound to exactly one withdrawal: the W3C extension for
 * confirming transactions was abandoned, so the binding goes into the challenge itself.
 *
 *   challenge = base64url(SHA-256(canonical JSON of {request id, amount, currency, network,
 *               destination, approver, policy version, nonce, expiry}))
 *
 * Recomputed from the request as it is when the answer arrives: a changed amount, destination or
 * policy gives another challenge, so the signature no longer matches it. A batch payout's approval
 * binds the batch, its file's sha256 and its total instead (batchBoundFacts). Pure.
 */
import { createHash } from 'node:crypto';
import type { Policy } from '../policy/schema.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import type { Batch } from '../batches/types.js';

export interface BoundFacts {
  requestId: string;
  amount: string;
  currency: string;
  network: string;
  destination: string;
  approver: string;
  policyVersion: string;
  nonce: string;
  /** ISO time. */
  expiry: string;
}

/**
 * Canonical JSON of a flat object of strings: keys sorted, no spaces. For such an object this is
 * exactly RFC 8785 (JCS), since JSON.stringify escapes strings as JCS does.
 */
export function canonicalJson(facts: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(facts).sort();
  return `{${sorted.map((k) => `${JSON.stringify(k)}:${JSON.stringify(facts[k])}`).join(',')}}`;
}

export function bindingChallenge(f: BoundFacts | BatchBoundFacts): string {
  return createHash('sha256')
    .update(canonicalJson({ ...f }))
    .digest('base64url');
}

export function boundFacts(
  r: Pick<WithdrawalRequest, 'id' | 'amount' | 'currency' | 'network' | 'destination'>,
  o: { approver: string; policyVersion: string; nonce: string; expiresAt: number },
): BoundFacts {
  return {
    requestId: r.id,
    amount: r.amount,
    currency: r.currency,
    network: r.network,
    destination: r.destination,
    approver: o.approver,
    policyVersion: o.policyVersion,
    nonce: o.nonce,
    expiry: new Date(o.expiresAt).toISOString(),
  };
}

/**
 * A batch payout's approval: the batch, its file's sha256, its total (exact text per currency, and its
 * USD value as judged), the approver, the policy version, the nonce and the expiry. `kind` keeps a
 * batch's challenge from ever equalling a withdrawal's.
 */
export interface BatchBoundFacts {
  kind: 'batch';
  batchId: string;
  sha256: string;
  totals: string;
  value: string;
  rows: string;
  approver: string;
  policyVersion: string;
  nonce: string;
  expiry: string;
}

export function batchBoundFacts(
  b: Pick<Batch, 'id' | 'sha256' | 'totals'>,
  o: { approver: string; policyVersion: string; nonce: string; expiresAt: number },
): BatchBoundFacts {
  return {
    kind: 'batch',
    batchId: b.id,
    sha256: b.sha256,
    totals: canonicalJson(b.totals.perCurrency),
    value: b.totals.value.kind === 'known' ? b.totals.value.usd : 'unknown',
    rows: String(b.totals.rows),
    approver: o.approver,
    policyVersion: o.policyVersion,
    nonce: o.nonce,
    expiry: new Date(o.expiresAt).toISOString(),
  };
}

const versions = new WeakMap<Policy, string>();

/** The policy in force, named by the SHA-256 of its parsed form (any change to it is another version). */
export function policyVersion(policy: Policy): string {
  let v = versions.get(policy);
  if (!v) {
    v = createHash('sha256').update(JSON.stringify(policy)).digest('hex').slice(0, 32);
    versions.set(policy, v);
  }
  return v;
}
