/**
 * The rolling limits and the new-destination rule as the rule table judges them (pure): what each
 * limit groups by, unknown values as the strictest case, a hold at the send (released by an admin),
 * escalation to the top tier on top of the new destination's extra approval, when room returns.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { Valuation } from '../../src/prices/types.js';
import { judge, type RuleFacts } from '../../src/withdrawals/rule-table.js';
import { knownAddresses } from '../../src/withdrawals/screening-rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const H = 3_600_000;
const policy = (limits: string, extra = '') =>
  parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE, U0BOB], approvers: [U0CAROL, U0DAVE, U0ERIN], admins: [U0ERIN] }
withdrawals:
  tiers: { default: [{ max: 1000, approvals: 1 }, { max: 50000, approvals: 2 }, { approvals: 3 }] }
  limits: ${limits}
${extra}`);
let n = 0;
const req = (o: Partial<WithdrawalRequest> = {}): WithdrawalRequest => ({
  id: `r${++n}`,
  merchantReference: `m${n}`,
  requester: 'U0ALICE',
  amount: '20000',
  currency: 'USDT',
  network: 'BSC',
  destination: '0x2222222222222222222222222222222222222222',
  clientEmail: 'a@client.example',
  note: 'x',
  state: 'pending',
  tier: { index: 1, max: '50000', approvals: 2, mustInclude: [] },
  approvals: [],
  createdAt: new Date(T0).toISOString(),
  expiresAt: new Date(T0 + 2 * H).toISOString(),
  allowlist: { status: 'off', neverPaidBefore: true },
  history: [],
  ...o,
});
const known = (usd: string): Valuation => ({
  kind: 'known',
  usd,
  price: '1',
  at: new Date(T0).toISOString(),
  source: 't',
});
const facts = (p: ReturnType<typeof policy>, others: WithdrawalRequest[], o: Partial<RuleFacts> = {}): RuleFacts => ({
  step: 'request',
  now: T0 + H,
  policy: p,
  valuation: known('20000'),
  prices: {
    now: T0 + H,
    maxAgeMs: 10 * H,
    quotes: { USDT: { price: '1', at: new Date(T0).toISOString(), source: 't' } },
  },
  requests: () => others,
  ...o,
});

describe('rolling limits', () => {
  it('each `per` groups its own requests: destination, requester, client, all', () => {
    const mine = req();
    const others = [
      req({
        destination: '0x3333333333333333333333333333333333333333',
        requester: 'U0BOB',
        clientEmail: 'b@client.example',
      }),
      req({ requester: 'U0BOB', clientEmail: 'b@client.example' }), // same destination (case differs below)
      req({ destination: '0x4444444444444444444444444444444444444444', clientEmail: 'A@Client.example ' }),
    ];
    others[1]!.destination = others[1]!.destination.toUpperCase().replace('0X', '0x');
    const used = (per: string) =>
      judge(mine, facts(policy(`[{ per: ${per}, window: 24h, value: 1000000 }]`), [...others, mine])).limits?.[0]
        ?.before;
    expect(used('destination')).toBe('20000.00');
    expect(used('requester')).toBe('20000.00');
    expect(used('client')).toBe('20000.00');
    expect(used('all')).toBe('60000.00');
  });

  it('refuse: refused at the request with when room returns; held at the send; passes once an admin released the hold', () => {
    const p = policy('[{ per: destination, window: 7d, value: 50000, action: refuse }]');
    const a = req({ createdAt: new Date(T0 - 3 * 24 * H).toISOString(), state: 'completed' });
    const b = req({ createdAt: new Date(T0).toISOString() });
    const mine = req();
    const atRequest = judge(mine, facts(p, [a, b]));
    expect(atRequest.holds[0]!.message).toContain('$40,000.00 is already requested');
    // a leaves the 7 days at T0 + 4 d: 20k + 20k fits then.
    expect(atRequest.holds[0]!.message).toContain('room for this request returns at 2030-01-05 00:00 UTC');
    const atSend = judge(mine, facts(p, [a, b, mine], { step: 'send' }));
    expect(atSend.holds.map((h) => h.rule)).toEqual(['rolling_limits']);
    const released = {
      ...mine,
      holdReleased: { by: 'U0ERIN', at: '', reason: 'ok', original: mine.id, kind: 'limit' as const },
    };
    expect(judge(released, facts(p, [a, b, released], { step: 'send' })).holds).toEqual([]);
    // Alone above the limit: no room will ever come.
    const huge = req({ amount: '60000' });
    expect(judge(huge, facts(p, [], { valuation: known('60000') })).holds[0]!.message).toContain(
      'this request alone is above it',
    );
  });

  it('an unknown value: refused by a refuse limit, the top tier by an escalate one', () => {
    const unknown: Valuation = { kind: 'unknown', reason: 'no price', since: null };
    const refuse = judge(req(), facts(policy('[{ per: all, window: 24h, value: 50000 }]'), [], { valuation: unknown }));
    expect(refuse.holds[0]!.message).toContain('cannot be checked');
    const esc = judge(
      req(),
      facts(policy('[{ per: all, window: 24h, value: 50000, action: escalate }]'), [], { valuation: unknown }),
    );
    expect(esc.holds).toEqual([]);
    expect(esc.tier).toMatchObject({ index: 2, approvals: 3, escalated: true });
  });

  it('escalated and a new destination: the top tier plus the extra approval', () => {
    const p = policy(
      '[{ per: destination, window: 24h, value: 30000, action: escalate }]',
      '  new_destination: { above: { value: 1000 }, extra_approvals: 2 }',
    );
    const j = judge(req(), facts(p, [req()]));
    expect(j.tier).toMatchObject({ approvals: 5, escalated: true, extra: 2 });
    // Paid before (a completed withdrawal to it): no extra.
    const paid = judge(
      req(),
      facts(p, [req({ state: 'completed', createdAt: new Date(T0 - 30 * 24 * H).toISOString() })]),
    );
    expect(paid.tier).toMatchObject({ approvals: 2 });
    expect(paid.tier?.extra).toBeUndefined();
  });
});

describe('one destination across networks', () => {
  const EVM = '0x5555555555555555555555555555555555555555';
  it('an EVM address is one destination on every EVM network (any case); a TRON address only on TRON, exactly', () => {
    const p = policy('[{ per: destination, window: 24h, value: 50000, action: refuse }]');
    // $20k on BSC and $20k on Ethereum to the same holder: a third $20k on BSC is over the $50k.
    const others = [
      req({ network: 'BSC', destination: EVM }),
      req({ network: 'ETH', destination: EVM.toUpperCase().replace('0X', '0x') }),
    ];
    const j = judge(req({ network: 'BSC', destination: EVM }), facts(p, others));
    expect(j.holds.map((h) => h.rule)).toEqual(['rolling_limits']);
    expect(j.holds[0]!.message).toContain('$40,000.00 is already requested');
    // TRON: base58 is case-sensitive, and is no EVM address.
    const tron = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
    const t = judge(
      req({ network: 'TRON', destination: tron }),
      facts(p, [req({ network: 'TRON', destination: tron.toLowerCase() }), req({ network: 'BSC', destination: EVM })]),
    );
    expect(t.limits?.[0]).toMatchObject({ before: '0.00', over: false });
  });

  it('paid before on another EVM network: not a new destination', () => {
    const p = policy('[]', '  new_destination: { above: { value: 1000 }, extra_approvals: 1 }');
    const paidOnEth = req({ network: 'ETH', destination: EVM, state: 'completed' });
    const j = judge(req({ network: 'BSC', destination: EVM.toUpperCase().replace('0X', '0x') }), facts(p, [paidOnEth]));
    expect(j.tier?.extra).toBeUndefined();
  });
});

describe('new destination: fixed at the request, paid before only in earnest', () => {
  const p = policy('[]', '  new_destination: { above: { value: 1000 }, extra_approvals: 1 }');
  const small = (usd: string) => req({ amount: usd, state: 'completed' });

  it('a $1 payment to the address completing meanwhile does not lower the $9k request’s extra approval', () => {
    const nine = req({ amount: '9000' });
    const made = judge(nine, facts(p, [], { valuation: known('9000') }));
    expect(made.tier).toMatchObject({ approvals: 3, extra: 1 });
    const stored = { ...nine, tier: made.tier! };
    for (const step of ['approve', 'send', 'verify'] as const) {
      const later = judge(stored, facts(p, [small('1')], { step, valuation: known('9000') }));
      expect(later.tier, step).toMatchObject({ approvals: 3, extra: 1 });
    }
  });

  it('paid before counts only completed payments worth the rule’s value together', () => {
    const at = (others: WithdrawalRequest[]) =>
      judge(req({ amount: '5000' }), facts(p, others, { valuation: known('5000') }));
    expect(at([small('1')]).tier?.extra).toBe(1);
    expect(at([small('600'), req({ amount: '5000', state: 'pending' })]).tier?.extra).toBe(1);
    expect(at([small('600'), small('400')]).tier?.extra).toBeUndefined();
  });
});

describe('paid before, from payments no longer in memory (paid-summary.ts)', () => {
  const EVM = '0x6666666666666666666666666666666666666666';
  const p = policy('[]', '  new_destination: { above: { value: 1000 }, extra_approvals: 1 }');
  const paidTo = (amounts: Record<string, string>, lastAt = new Date(T0).toISOString()) => ({
    id: `evm:${EVM}`,
    amounts,
    payments: 1,
    lastAt,
    destination: EVM,
    network: 'ETH',
  });
  const summary = (amounts: Record<string, string>, lastAt?: string): RuleFacts['paid'] => ({
    destination: (d) => (d.destination.toLowerCase() === EVM.toLowerCase() ? paidTo(amounts, lastAt) : undefined),
    client: () => false,
    fee: () => undefined,
    paidSince: (since) => [paidTo(amounts, lastAt)].filter((d) => Date.parse(d.lastAt) > since),
  });
  const at = (others: WithdrawalRequest[], paid?: RuleFacts['paid']) =>
    judge(req({ amount: '5000', destination: EVM }), facts(p, others, { valuation: known('5000'), paid }));

  it('the summary counts at the policy price, together with the payments still in memory', () => {
    expect(at([], summary({ USDT: '999' })).tier?.extra).toBe(1);
    expect(at([], summary({ USDT: '1000' })).tier?.extra).toBeUndefined();
    const hot = req({ amount: '400', destination: EVM, state: 'completed' });
    expect(at([hot], summary({ USDT: '600' })).tier?.extra).toBeUndefined();
    // A currency with no price proves nothing.
    expect(at([], summary({ DOGE: '1000000' })).tier?.extra).toBe(1);
    // No summary given: nothing is known paid (the strict reading).
    expect(at([]).tier?.extra).toBe(1);
  });

  it('look-alike screening compares with destinations paid in 90 days that left memory', () => {
    const f = (lastAt: string) => facts(p, [], { paid: summary({ USDT: '1' }, lastAt) });
    const daysAgo = (d: number) => new Date(T0 + H - d * 86_400_000).toISOString();
    expect(knownAddresses(f(daysAgo(60)))).toEqual([
      { address: EVM, network: 'ETH', label: expect.stringMatching(/^a destination paid on /) },
    ]);
    expect(knownAddresses(f(daysAgo(100)))).toEqual([]);
  });

  it('the allowlist’s "never paid before" reads it too', () => {
    expect(at([], summary({ USDT: '1' })).allowlist?.neverPaidBefore).toBe(false);
    expect(at([]).allowlist?.neverPaidBefore).toBe(true);
  });
});

describe('the rolling window and money sent late', () => {
  it('a request sent after it was made counts from its send: still in the window at its edge', () => {
    const p = policy('[{ per: destination, window: 24h, value: 50000, action: refuse }]');
    const now = T0 + 30 * H;
    const sent = (claimedAgo: number) =>
      req({
        amount: '40000',
        state: 'completed',
        // Made 25 h ago (outside the window), claimed for sending `claimedAgo` ago.
        createdAt: new Date(now - 25 * H).toISOString(),
        history: [{ at: new Date(now - claimedAgo).toISOString(), state: 'executing', by: 'system' }],
      });
    const at = (others: WithdrawalRequest[]) => judge(req(), facts(p, others, { now }));
    // Claimed 23 h 59 min ago: $40k is in the window, so $20k more is over $50k.
    expect(at([sent(24 * H - 60_000)]).holds.map((h) => h.rule)).toEqual(['rolling_limits']);
    // Claimed just over 24 h ago: out of the window.
    expect(at([sent(24 * H + 60_000)]).holds).toEqual([]);
  });
});
