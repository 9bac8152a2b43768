/**
 * The verification callback's decision on records, apart from where they are read: the
 * leader's handler (handler.ts) judges its in-memory store, a standby replica
 * (src/replica/standby-verify.ts) judges the same records read from PostgreSQL: one code for
 * the reference, the state, the freeze and the fields. The leader also passes `rules` (the
 * withdrawal rule table, which needs its price cache); a standby answering during a failover
 * does not, so it cannot refuse a limit crossed since the claim (docs/explanation/security-model.md).
 * Pure: reads in, answer and audit details out.
 */
import { z } from 'zod';
import { type FrozenFact, frozenFact } from '../freeze/state.js';
import type { Reads } from '../store/index.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../withdrawals/index.js';
import { shortReference } from './alerts.js';
import { verificationChecksum } from './checksum.js';
import { type CallFields, type FieldMismatch, fieldMismatches, parseCallFields } from './fields.js';
import { type Verdict, verdict, VERDICT_WORDS } from './verdict.js';

const querySchema = z.object({
  reference: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
});

/** What the service asked: the reference exactly as sent, and whether it has a usable shape. */
export interface VerificationQuery {
  /** The reference exactly as asked: one that fails the shape is still someone asking, and alarms. */
  rawReference: string;
  valid: boolean;
  /** The validated reference ('' when not valid). */
  reference: string;
  /** The withdrawal's other fields, when the call carries them (fields.ts). */
  fields: CallFields;
}

/** The query of any request target; one that is not a URL has none (and so no usable reference). */
export function parseVerificationQuery(target: string | undefined): VerificationQuery {
  let query: URLSearchParams;
  try {
    query = new URL(target ?? '/', 'http://localhost').searchParams;
  } catch {
    query = new URLSearchParams();
  }
  const parsed = querySchema.safeParse({ reference: query.get('reference') ?? undefined });
  return {
    rawReference: query.get('reference') ?? '',
    valid: parsed.success,
    reference: parsed.success ? parsed.data.reference : '',
    fields: parseCallFields(query),
  };
}

export interface Judged {
  cur: WithdrawalRequest | undefined;
  frozen: FrozenFact | undefined;
  /** The carried values that are not the request's (none without a request). */
  mismatches: FieldMismatch[];
  v: Verdict;
  answer: { isVerified: boolean; checksum: string };
  /** The rule table's reason it may not go now (reason `policy`). */
  policy?: string;
}

/**
 * The verdict on what `r` holds now, and the answer to send. `rules`: the withdrawal rule table
 * judged at the callback (the leader's; rule-table.ts) — why the request may not go now, or
 * undefined when it may.
 */
export function judgeVerification(
  r: Reads,
  q: VerificationQuery,
  secretKey: string,
  rules?: (req: WithdrawalRequest) => string | undefined,
): Judged {
  const cur = q.valid ? r.all(WITHDRAWALS).find((x) => x.merchantReference === q.reference) : undefined;
  const frozen = frozenFact(r);
  const mismatches = cur ? fieldMismatches(cur, q.fields) : [];
  const policy = cur?.state === 'executing' && rules ? rules(cur) : undefined;
  const v = verdict({
    referenceValid: q.valid,
    request: cur,
    frozen: !!frozen,
    mismatches: mismatches.map((m) => m.field),
    ...(policy ? { policy } : {}),
  });
  const answer =
    v.isVerified && cur
      ? { isVerified: true, checksum: verificationChecksum(secretKey, cur.merchantReference, cur.destination) }
      : { isVerified: false, checksum: '' };
  return { cur, frozen, mismatches, v, answer, ...(policy ? { policy } : {}) };
}

/** The refused values for the admins, as asked, each shortened: "amount 5000; network ETH". */
export function askedSummary(mismatches: readonly FieldMismatch[]): string {
  return mismatches.map((m) => `${m.field} ${shortReference(m.asked, 64)}`).join('; ');
}

/** Values kept per field in the audit entry: a call repeating a parameter cannot grow the log without end. */
const ASKED_KEPT = 10;

/** What the call carried besides the reference, each value as asked (shortened), for the audit entry. */
function askedFields(fields: CallFields): Record<string, string[]> | undefined {
  const entries = Object.entries(fields).map(([field, values]) => [
    field,
    values.slice(0, ASKED_KEPT).map((c) => shortReference(c.asked)),
  ]);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The audit entry of one answered call (without its time), the same wherever it was answered. */
export function verificationAudit(
  q: VerificationQuery,
  j: Judged,
): { subject: string; details: Record<string, unknown> } {
  const { cur, frozen, v, mismatches } = j;
  const asked = askedFields(q.fields);
  return {
    subject: cur?.id ?? (q.reference || 'unknown'),
    details: {
      merchantReference: q.reference || null,
      // A reference refused for its shape, as asked (shortened): kept apart, it is any text.
      ...(!q.valid && q.rawReference ? { askedReference: shortReference(q.rawReference) } : {}),
      verdict: v.isVerified ? 'verified' : 'refused',
      reason: v.reason,
      why: VERDICT_WORDS[v.reason],
      ...(j.policy ? { policy: j.policy } : {}),
      state: cur?.state ?? null,
      ...(cur
        ? { amount: cur.amount, currency: cur.currency, network: cur.network, destination: cur.destination }
        : {}),
      ...(frozen ? { frozenBy: frozen.by } : {}),
      ...(asked ? { asked } : {}),
      ...(mismatches.length ? { mismatches: [...new Set(mismatches.map((m) => m.field))] } : {}),
    },
  };
}
