/**
 * The one rule table (rule-table.ts, invariant 17): for each rule, a fact the rule reads that
 * changes between the request and the send changes the outcome at the send. The scenarios are
 * a Record over the table's rule names, so a rule added without one does not compile. Before the
 * table, the daily limits were never judged again at the send, and this failed for them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { PriceSnapshot } from '../../src/prices/types.js';
import { valueAt } from '../../src/prices/value.js';
import { judge, RULES, type Judgement, type RuleFacts, type RuleName } from '../../src/withdrawals/rule-table.js';
import { approvalsComplete } from '../../src/withdrawals/rules.js';
import { tierFor } from '../../src/withdrawals/value-rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { makeList } from '../../src/screening/list.js';
import type { ScreeningFacts } from '../../src/screening/types.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const LISTED = '0x1111111111111111111111111111111111111111';

const policyText = (o: { mode?: string; listed?: boolean } = {}) => `
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3 }
  daily_limit: { value: 50000, USDT: 50000 }
  note_required_above: { value: 20000 }
  step_up_above: { value: 20000 }
  allowlist:
    mode: ${o.mode ?? 'warn'}
    addresses: [${o.listed === false ? '' : `{ address: "${LISTED}", network: ETH, label: "Desk" }`}]
`;
const POLICY = parsePolicy(policyText());

/** A sanctions list read `ageMs` before the send's facts (T0 + 1 min), holding `addresses`. */
const screened = (addresses: string[], ageMs = 0): ScreeningFacts => {
  const at = new Date(T0 + 60_000 - ageMs).toISOString();
  return { list: makeList(addresses, { source: 'test', date: at, fetchedAt: at }) };
};
/** Another address with the same first and last four characters after 0x. */
const lookalikeOf = (a: string) => `${a.slice(0, 6)}${'9'.repeat(a.length - 10)}${a.slice(-4)}`;

const snapshot = (prices: Record<string, number>): PriceSnapshot => ({
  now: T0,
  maxAgeMs: 300_000,
  quotes: Object.fromEntries(
    Object.entries(prices).map(([c, p]) => [c, { price: String(p), at: new Date(T0).toISOString(), source: 'test' }]),
  ),
});

let seq = 0;
/** A request as it stood when it was approved: valued and tiered at `price`, approved as that tier asked. */
function approvedAt(o: { amount: string; currency?: string; price: number; note?: string; codes?: boolean }) {
  const currency = o.currency ?? 'ETH';
  const valuation = valueAt(snapshot({ [currency]: o.price }), currency, o.amount);
  const tier = tierFor(POLICY, currency, o.amount, valuation)!;
  const req: WithdrawalRequest = {
    id: `r${String(++seq).padStart(6, '0')}`,
    merchantReference: `m${seq}`,
    requester: 'U0ALICE',
    amount: o.amount,
    currency,
    network: 'ETH',
    destination: LISTED,
    clientEmail: 'c@example.com',
    note: o.note ?? '',
    state: 'approved',
    tier,
    approvals: ['U0CAROL', 'U0DAVE', 'U0ERIN'].slice(0, tier.approvals).map((user) => ({
      user,
      at: new Date(T0).toISOString(),
      satisfies: [],
      ...(o.codes ? { stepUp: 'verified' as const } : {}),
    })),
    valuation,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + 7_200_000).toISOString(),
    allowlist: { status: 'listed', label: 'Desk', neverPaidBefore: true },
    history: [],
  };
  return req;
}

function facts(
  req: WithdrawalRequest,
  o: Partial<Omit<RuleFacts, 'requests'>> & { others?: WithdrawalRequest[] } = {},
) {
  const prices =
    o.prices ?? snapshot({ [req.currency]: Number(req.valuation?.kind === 'known' ? req.valuation.price : 1) });
  const policy = o.policy ?? POLICY;
  const f: RuleFacts = {
    step: 'send',
    now: T0 + 60_000,
    policy,
    prices,
    valuation: o.valuation ?? valueAt(prices, req.currency, req.amount),
    requests: () => [...(o.others ?? []), req],
    ...(o.frozen ? { frozen: o.frozen } : {}),
    ...(o.screening ? { screening: o.screening } : {}),
  };
  return f;
}

/** The outcome at the send: goes, or why not (refused, held, or waits for approvals). */
function outcome(req: WithdrawalRequest, j: Judgement): string {
  if (j.refusal) return `refused:${j.refusal.rule}`;
  if (j.holds.length) return `held:${j.holds.map((h) => h.rule).join(',')}`;
  const next = { ...req, tier: j.tier!, approvals: j.approvals };
  return approvalsComplete(next) ? 'goes' : 'waits';
}

/** Per rule: a request that goes at the send with the facts of its request, and the same request with one fact that rule reads changed. */
type Scenario = fc.Arbitrary<{ req: WithdrawalRequest; before: RuleFacts; after: RuleFacts }>;

const SCENARIOS: Record<RuleName, Scenario> = {
  sanctions: fc.integer({ min: 1, max: 900 }).map((n) => {
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    // The destination was listed (in other casing: EVM addresses compare case-insensitively) after the request.
    const listed = screened([
      '0xAbCdEf0000000000000000000000000000000001',
      req.destination.toUpperCase().replace('0X', '0x'),
    ]);
    return { req, before: facts(req, { screening: screened([]) }), after: facts(req, { screening: listed }) };
  }),
  stale_list: fc.integer({ min: 10_001, max: 19_999 }).map((n) => {
    // Above stale_block_above ($10,000): fresh list at the request, not refreshed for three days at the send.
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    return {
      req,
      before: facts(req, { screening: screened([]) }),
      after: facts(req, { screening: screened([], 3 * 86_400_000) }),
    };
  }),
  lookalike: fc.integer({ min: 1, max: 900 }).map((n) => {
    // A destination nobody had paid; since, a payment went to an address it imitates: it needs one more approval.
    const dest = '0x2222333344445555666677778888999900001111';
    const base = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    const req = { ...base, destination: dest, allowlist: { status: 'unlisted' as const, neverPaidBefore: true } };
    const paid = {
      ...approvedAt({ amount: '5', currency: 'USDT', price: 1 }),
      destination: lookalikeOf(dest),
      state: 'completed' as const,
    };
    return { req, before: facts(req), after: facts(req, { others: [paid] }) };
  }),
  freeze: fc.integer({ min: 1, max: 900 }).map((n) => {
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    return { req, before: facts(req), after: facts(req, { frozen: { by: 'U0ERIN', reason: 'incident' } }) };
  }),
  allowlist: fc.integer({ min: 1, max: 900 }).map((n) => {
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    // The address left an enforced allowlist between the request and the send.
    const enforce = (listed: boolean) => parsePolicy(policyText({ mode: 'enforce', listed }));
    return { req, before: facts(req, { policy: enforce(true) }), after: facts(req, { policy: enforce(false) }) };
  }),
  tier: fc
    .record({ amount: fc.integer({ min: 1, max: 9 }), rise: fc.integer({ min: 2, max: 50 }) })
    .map(({ amount, rise }) => {
      // $100 a unit: under $1,000 when approved; the price rose so that it is above $1,000 now.
      const req = approvedAt({ amount: String(amount), price: 100 });
      const now = Math.ceil(1000 / amount) * rise + 1;
      return { req, before: facts(req), after: facts(req, { prices: snapshot({ ETH: now }) }) };
    }),
  step_up: fc.integer({ min: 11, max: 19 }).map((k) => {
    // Approved at $k,000 with three approvals but no code (none needed then); the price rose past step_up_above.
    const req = approvedAt({ amount: '1', price: k * 1000, note: 'payout' });
    return { req, before: facts(req), after: facts(req, { prices: snapshot({ ETH: 25_000 + k }) }) };
  }),
  note: fc.integer({ min: 11, max: 19 }).map((k) => {
    // Approved with authenticator codes at $k,000 (no note needed); the price rose past note_required_above.
    const req = approvedAt({ amount: '1', price: k * 1000, codes: true });
    const after = facts(req, { prices: snapshot({ ETH: 20_000 + k }) });
    // The tier's third approval is there: only the note is missing now.
    return { req: { ...req, tier: { ...req.tier, index: 2, max: null, approvals: 3 } }, before: facts(req), after };
  }),
  daily_limit: fc.integer({ min: 51, max: 900 }).map((n) => {
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    // Another USDT payout went out since (its money is gone): the native daily limit is crossed now.
    const other = { ...approvedAt({ amount: '49950', currency: 'USDT', price: 1 }), state: 'completed' as const };
    return { req, before: facts(req), after: facts(req, { others: [other] }) };
  }),
  daily_value_limit: fc.integer({ min: 1, max: 9 }).map((n) => {
    const req = approvedAt({ amount: String(n), price: 10 });
    // An earlier request made in a low-price window: worth $400 then, $40,000+ at the price now.
    const earlier = { ...approvedAt({ amount: '40', price: 10 }), state: 'pending' as const };
    const prices = snapshot({ ETH: 1_300 });
    return {
      req,
      before: facts(req, { others: [earlier] }),
      after: facts(req, { others: [earlier], prices, valuation: valueAt(snapshot({ ETH: 10 }), 'ETH', req.amount) }),
    };
  }),
  rolling_limits: fc.integer({ min: 51, max: 900 }).map((n) => {
    // Per destination over 7 days: a payout to the same address 3 days ago (outside the daily limits) fills it now.
    const policy = parsePolicy(
      `${policyText()}  limits: [{ per: destination, window: 7d, value: 50000, action: refuse }]\n`,
    );
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    const other = {
      ...approvedAt({ amount: '49950', currency: 'USDT', price: 1 }),
      state: 'completed' as const,
      createdAt: new Date(T0 - 3 * 86_400_000).toISOString(),
    };
    return { req, before: facts(req, { policy }), after: facts(req, { policy, others: [other] }) };
  }),
  new_destination: fc.integer({ min: 101, max: 900 }).map((n) => {
    // Paid before 10 days ago (outside every window), at least the rule's value: no extra approval. That payout found failed: a new destination.
    const policy = parsePolicy(`${policyText()}  new_destination: { above: { value: 100 }, extra_approvals: 1 }\n`);
    const req = approvedAt({ amount: String(n), currency: 'USDT', price: 1 });
    const earlier = {
      ...approvedAt({ amount: '150', currency: 'USDT', price: 1 }),
      state: 'completed' as const,
      createdAt: new Date(T0 - 10 * 86_400_000).toISOString(),
    };
    return {
      req,
      before: facts(req, { policy, others: [earlier] }),
      after: facts(req, { policy, others: [{ ...earlier, state: 'failed' as const }] }),
    };
  }),
};

describe('the rule table', () => {
  it('every rule runs at the send and at the verification callback', () => {
    for (const [name, rule] of Object.entries(RULES)) {
      expect(rule.steps, name).toContain('send');
      expect(rule.steps, name).toContain('verify');
    }
  });

  it('a USD value passkey_above: a value that rose above it after approval needs passkey proof again at the send', () => {
    const policy = parsePolicy(
      policyText().replace('  step_up_above:', '  passkey_above: { value: 20000 }\n  step_up_above:'),
    );
    fc.assert(
      fc.property(fc.integer({ min: 11, max: 19 }), fc.constantFrom('send' as const, 'verify' as const), (k, step) => {
        // Approved at $k,000 with codes (no passkey needed then); the price rose past the passkey threshold.
        const req = approvedAt({ amount: '1', price: k * 1000, codes: true, note: 'invoice 7' });
        const rose = { policy, prices: snapshot({ ETH: 25_000 + k }) };
        expect(outcome(req, judge(req, { ...facts(req, { policy }), step }))).toBe('goes');
        expect(outcome(req, judge(req, { ...facts(req, rose), step }))).not.toBe('goes');
        // The same approvals given with a passkey count at the new value.
        const withPasskeys = {
          ...req,
          approvals: req.approvals.map((a) => ({ ...a, stepUp: 'passkey' as const })),
        };
        expect(outcome(withPasskeys, judge(withPasskeys, { ...facts(withPasskeys, rose), step }))).toBe('goes');
      }),
      { numRuns: 30 },
    );
  });

  for (const name of Object.keys(SCENARIOS) as RuleName[]) {
    it(`${name}: a fact it reads that changed between the request and the send changes the outcome at the send and at the callback`, () => {
      fc.assert(
        fc.property(
          SCENARIOS[name],
          fc.constantFrom('send' as const, 'verify' as const),
          ({ req, before, after }, step) => {
            expect(outcome(req, judge(req, { ...before, step }))).toBe('goes');
            expect(outcome(req, judge(req, { ...after, step }))).not.toBe('goes');
          },
        ),
        { numRuns: 50 },
      );
    });
  }
});

describe('screening.enabled: false', () => {
  it('switches off the provider and the look-alikes, never the sanctions list', () => {
    const off = parsePolicy(`${policyText()}screening: { enabled: false }\n`);
    const req = approvedAt({ amount: '500', currency: 'USDT', price: 1 });
    const listed = screened([req.destination]);
    for (const step of ['send', 'verify'] as const)
      expect(outcome(req, judge(req, { ...facts(req, { policy: off, screening: listed }), step }))).toBe(
        'refused:sanctions',
      );
    const provider = {
      name: 'test provider',
      answer: () => ({ kind: 'listed' as const, names: ['x'], at: T0 }),
    } as unknown as ScreeningFacts['provider'];
    const clean = { ...screened([]), provider };
    expect(outcome(req, judge(req, facts(req, { policy: off, screening: clean })))).toBe('goes');
    expect(outcome(req, judge(req, facts(req, { screening: clean })))).toBe('refused:sanctions');
  });
});
