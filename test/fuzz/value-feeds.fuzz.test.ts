/**
 * Property (issue 24): random price feeds (gaps, spikes, stale, garbled, negative and zero
 * answers) never let a request be claimed for sending with fewer approvals than the strictest
 * tier its value could need. The real price cache (src/prices: judge, cache, max_age) fed by a
 * scripted price API, the real decider (request, approvals, the claim's re-check at a fresh price).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPrices } from '../../src/prices/index.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { valueAt } from '../../src/prices/value.js';
import { parsePolicy } from '../../src/policy/load.js';
import { decide, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import { admitRequest, selectTier } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { quietLogger } from '../withdrawals/helpers.js';
import { pure } from './config.js';

const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people:
  requesters: [U0ALICE]
  approvers: [U0ERIN, U0CAROL, U0DAVE]
  admins: [U0ERIN, U0DAVE]
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [U0ERIN] }
valuation: { max_age: 5m }
`);
const TOP = 3;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const STEP = 61_000;
const MAX_AGE = 5 * 60_000;

// 'repeat': the same answer as the step before (a move that lasts, which confirms it).
type Feed = 'ok' | 'down' | 'spike' | 'stale' | 'garbled' | 'negative' | 'zero' | 'repeat';
const step = fc.record({
  price: fc.double({ min: 50, max: 20_000, noNaN: true }),
  feed: fc.constantFrom<Feed>('ok', 'ok', 'ok', 'down', 'spike', 'stale', 'garbled', 'negative', 'zero', 'repeat'),
  spike: fc.double({ min: 1.6, max: 50, noNaN: true }),
});

const fresh = (f: Feed) => f === 'ok' || f === 'spike' || f === 'repeat';

const approvalsNeeded = (usd: string | undefined) =>
  usd === undefined
    ? TOP
    : selectTier(policy, 'ETH', '1', { kind: 'known', usd, price: '1', at: '', source: '' })!.approvals;

describe('price feeds and approvals', () => {
  it('a claimed send always has at least the approvals of the strictest tier its value could need', async () => {
    let claimed = 0;
    let reopened = 0;
    let heldBack = 0;
    let confirmed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 2, maxLength: 12 }),
        fc.double({ min: 0.001, max: 40, noNaN: true }),
        fc.nat(),
        async (steps, rawAmount, pick) => {
          const amount = rawAmount.toFixed(6);
          let i = 0;
          let clock = T0;
          // Which true prices the feed really delivered (and when): nothing else may ever be believed.
          const delivered: Array<{ at: number; price: number; index: number }> = [];
          // What each step's fetch answered (usd), for 'repeat'.
          const answered: number[] = [];
          const prices = createPrices({
            source: 'scripted',
            policy: fixedPolicy(policy),
            now: () => clock,
            logger: quietLogger(),
            fetch: async () => {
              const s = steps[i]!;
              const usd =
                s.feed === 'repeat'
                  ? (answered[i - 1] ?? s.price)
                  : s.feed === 'negative'
                    ? -s.price
                    : s.feed === 'zero'
                      ? 0
                      : s.feed === 'spike'
                        ? s.price * s.spike
                        : s.price;
              answered[i] = usd;
              if (s.feed === 'down') return { ok: false, reason: 'the price source answered HTTP 503' };
              if (s.feed === 'garbled') return { ok: true, body: { ethereum: { usd: String(usd) } } };
              // A spike is a price the feed really answered: believed only once a second answer confirms it.
              if (fresh(s.feed) && usd > 0) delivered.push({ at: clock, price: usd, index: i });
              const updated = s.feed === 'stale' ? clock - 10 * 60_000 : clock;
              return { ok: true, body: { ethereum: { usd, last_updated_at: Math.floor(updated / 1000) } } };
            },
          });
          const requestAt = pick % (steps.length - 1);
          let req: WithdrawalRequest | undefined;
          let believed: { price: number; at: string } | undefined;
          for (i = 0; i < steps.length; i++) {
            clock = T0 + i * STEP;
            await prices.refresh();
            const snap = prices.snapshot();
            const now = valueAt(snap, 'ETH', '1');
            const usd = answered[i];
            // (4) After a fresh, positive, well-formed answer the value is that answer's price or unknown:
            // never an older price kept over a move it refused, never a price it has not confirmed.
            if (fresh(steps[i]!.feed) && usd !== undefined && usd > 0) {
              // The believed (current) price: policy may judge higher (the window's high), never lower.
              if (now.kind === 'known') expect(Number(now.market?.price ?? now.price)).toBeCloseTo(usd, 6);
              else if (believed) heldBack += 1;
            }
            // (5) A newly believed price more than 50% away from the one believed before it was
            // confirmed: the feed gave the same level (within 5%) at least a minute earlier.
            if (now.kind === 'known' && now.at !== believed?.at) {
              const p = Number(now.market?.price ?? now.price);
              if (believed && Math.abs(p / believed.price - 1) > 0.5) {
                confirmed += 1;
                const earlier = delivered.some((d) => clock - d.at >= 60_000 && Math.abs(d.price / p - 1) <= 0.05);
                expect(earlier, 'a large move is believed only once confirmed').toBe(true);
              }
              believed = { price: p, at: now.at };
            }
            if (i === requestAt) {
              const checked = admitRequest(
                policy,
                {
                  amount,
                  currency: 'ETH',
                  network: 'BSC',
                  destination: `0x${'2'.repeat(40)}`,
                  clientEmail: 'c@x.io',
                  note: 'n',
                },
                true,
                snap,
              );
              if (!checked.ok) return;
              const command: WithdrawalCommand = {
                type: 'request',
                requester: 'U0ALICE',
                checked,
                id: 'w1',
                merchantReference: 'r1',
                existing: [],
                prices: snap,
              };
              const made = decide(command, undefined, { now: clock, policy });
              if (made.kind !== 'changed') return;
              req = made.next;
              // Approved by as many as its tier at request asked for (the must_include first).
              for (const user of ['U0ERIN', 'U0CAROL', 'U0DAVE'].slice(0, req.tier.approvals)) {
                const d: ReturnType<typeof decide> = decide(
                  { type: 'approve', user, isApprover: true, satisfies: user === 'U0ERIN' ? ['U0ERIN'] : [] },
                  req,
                  { now: clock, policy },
                );
                if (d.kind === 'changed') req = d.next;
              }
            }
          }
          if (req?.state !== 'approved') return;
          // The claim, at the last step, re-checked with the value at the cache's price now.
          const snap = prices.snapshot();
          const valuation = valueAt(snap, 'ETH', amount);
          const claim = decide({ type: 'claim-for-sending', valuation }, req, { now: clock, policy });
          const quote = snap.quotes.ETH;
          // (1) Nothing but a positive, fresh, well-formed answer is ever believed, and only within max_age.
          if (valuation.kind === 'known') {
            const from = delivered.find((d) => new Date(d.at).toISOString() === quote!.at);
            expect(from, 'a believed price came from an answer the feed really gave').toBeDefined();
            expect(Number(quote!.price)).toBeCloseTo(from!.price, 6);
            expect(clock - from!.at).toBeLessThanOrEqual(MAX_AGE);
          }
          if (claim.kind === 'changed' && claim.event === 'reopened') reopened += 1;
          if (claim.kind !== 'changed' || claim.event !== 'executing') return;
          claimed += 1;
          const sent = claim.next;
          // (2) Never fewer approvals than the tier of the value it is sent at; unknown: the top tier.
          const needed = approvalsNeeded(valuation.kind === 'known' ? valuation.usd : undefined);
          expect(sent.approvals.length).toBeGreaterThanOrEqual(needed);
          // (3) With every answer since the request true (however far the price moved: a move not yet
          // confirmed makes the value unknown, the top tier), never fewer approvals than the real value needs.
          const honest = steps.slice(requestAt).every((s) => s.feed === 'ok');
          if (honest) {
            const real = (Number(amount) * steps[steps.length - 1]!.price).toFixed(2);
            expect(sent.approvals.length).toBeGreaterThanOrEqual(approvalsNeeded(real));
          }
        },
      ),
      pure(300),
    );
    // Not vacuous: sends were claimed, some were held back for more approvals, large moves were held
    // back (value unknown) and some were believed once confirmed.
    expect(claimed).toBeGreaterThan(20);
    expect(reopened).toBeGreaterThan(5);
    expect(heldBack).toBeGreaterThan(20);
    expect(confirmed).toBeGreaterThan(5);
  });
});
