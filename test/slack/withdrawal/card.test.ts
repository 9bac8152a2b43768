/**
 * The withdrawal card, DMs and thread lines as pure renderings of requests built by the decider:
 * status first, one vocabulary, the fee before and after (both ways a service may charge it),
 * a long note never cut silently, and notification texts without raw mrkdwn.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderCard, renderDm, renderThread, stateLabel, type CardFacts } from '../../../src/slack/withdrawal/index.js';
import { decide, type WithdrawalCommand } from '../../../src/withdrawals/decide/index.js';
import { expectedSettlement, feeEstimate, settlementOf } from '../../../src/withdrawals/fees.js';
import type { RequestInput, WithdrawalRequest } from '../../../src/withdrawals/types.js';
import { newRequest } from '../../helpers/withdrawal-request.js';
import type { WithdrawAnswer } from '../../../src/withdrawals/wallet-answer.js';
import { visibleText } from '../../helpers/treasury-app.js';
import { DEST, T0, testPolicy, usdt } from '../../withdrawals/helpers.js';

const policy = testPolicy();
const facts: CardFacts = { dailyUsage: (currency) => ({ currency, used: '0', limit: null, remaining: null }) };
const pointer = () => ({
  channel: 'C0APPROVALS',
  permalink: 'https://acme.slack.com/archives/C0APPROVALS/p1700000000000100',
});

function request(input: RequestInput = usdt('250')): WithdrawalRequest {
  return newRequest({ policy, input, now: T0 });
}

function then(req: WithdrawalRequest, ...commands: WithdrawalCommand[]): WithdrawalRequest {
  let cur = req;
  for (const c of commands) {
    const d = decide(c, cur, { now: T0 + 60_000, policy });
    if (d.kind !== 'changed') throw new Error(`${c.type}: ${JSON.stringify(d)}`);
    cur = d.next;
  }
  return cur;
}

const answer = (over: Partial<WithdrawAnswer>): WithdrawAnswer =>
  ({
    serviceReference: 'svc-1',
    merchantReference: null,
    destinationAddress: DEST,
    amount: '250',
    amountRequested: '250',
    fee: '1',
    feeCurrency: { name: 'USDT' },
    description: null,
    message: null,
    raw: {},
    ...over,
  }) as WithdrawAnswer;

/** 250.00 USDT (1 approval), approved, sent, answered with `over`. */
function sent(over: Partial<WithdrawAnswer>): WithdrawalRequest {
  const approved = then(
    request(),
    { type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] },
    { type: 'claim-for-sending' },
  );
  return then(approved, { type: 'record-send-outcome', requestId: 'w1', outcome: { ok: true, answer: answer(over) } });
}

const headerOf = (r: WithdrawalRequest, f: CardFacts = facts) =>
  (renderCard(r, f, 'testnet').blocks![0] as { text: { text: string } }).text.text;
const cardText = (r: WithdrawalRequest, f: CardFacts = facts) => visibleText(renderCard(r, f, 'testnet'));

describe('the withdrawal card', () => {
  it('puts the status first, in one vocabulary for every state', () => {
    const pending = request(usdt('5000'));
    expect(headerOf(pending)).toBe('⏳ 0 of 2 approvals · 5,000.00 USDT on BSC');
    expect(headerOf(then(pending, { type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] }))).toBe(
      '⏳ 1 of 2 approvals · 5,000.00 USDT on BSC',
    );
    expect(headerOf(then(pending, { type: 'reject', user: 'U0CAROL', isApprover: true, reason: 'wrong client' }))).toBe(
      '⛔ Rejected · 5,000.00 USDT on BSC',
    );
    const expired = decide({ type: 'expire' }, pending, { now: T0 + 3 * 3_600_000, policy });
    expect(expired.kind === 'changed' && headerOf(expired.next)).toBe('⌛ Expired · 5,000.00 USDT on BSC');
    expect(headerOf(sent({}))).toBe('✅ Sent · 250.00 USDT on BSC');
    const approved = then(request(), { type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] });
    expect(headerOf(approved)).toBe('🔄 Sending · 250.00 USDT on BSC');
    const unknown = then(approved, { type: 'claim-for-sending' }, { type: 'mark-unknown-at-startup' });
    expect(headerOf(unknown)).toBe('⚠️ Outcome unknown · 250.00 USDT on BSC');
    const notSent = then(unknown, {
      type: 'resolve-unknown',
      admin: 'U0ERIN',
      isAdmin: true,
      outcome: 'not_sent',
      note: 'checked',
    });
    expect(headerOf(notSent)).toBe('❌ Not sent · 250.00 USDT on BSC');
    // The fallback (notification) text leads with the same words.
    expect(renderCard(notSent, facts, 'testnet').text).toMatch(
      /^❌ Not sent · 250.00 USDT on BSC to 0x2222…2222 \(ref 1a2b3c4d\)$/,
    );
    expect(stateLabel(sent({}))).toBe('✅ Sent');
  });

  it('after sending: "Debited · delivered · fee", whether the fee was taken out of the amount or charged on top', () => {
    // withdrawnAmount 249 of withdrawnAmountRequested 250, charge 1: the fee came out of the amount.
    const taken = sent({ amount: '249', amountRequested: '250', fee: '1' });
    expect(cardText(taken)).toContain('*Sent*: Debited 250.00 USDT · delivered 249.00 USDT · fee 1.00 USDT.');
    expect(renderDm('w1|completed', () => taken, pointer)!.text).toBe(
      '✅ Sent · your withdrawal of 250.00 USDT on BSC to `0x2222…2222`: Debited 250.00 USDT · delivered 249.00 USDT · fee 1.00 USDT.\n<https://acme.slack.com/archives/C0APPROVALS/p1700000000000100|Open the card>',
    );
    const onTop = sent({ amount: '250', amountRequested: '250', fee: '1' });
    expect(cardText(onTop)).toContain('Debited 251.00 USDT · delivered 250.00 USDT · fee 1.00 USDT');
    const gas = sent({ fee: '0.0005', feeCurrency: { name: 'BNB' } as WithdrawAnswer['feeCurrency'] });
    expect(cardText(gas)).toContain('Debited 250.00 USDT · delivered 250.00 USDT · fee 0.0005 BNB');
  });

  it('before approval: the expected fee and what the payee receives, as an estimate from the last fee charged', () => {
    const last = sent({ amount: '249', amountRequested: '250', fee: '1' });
    const estimate = feeEstimate([last], 'USDT', 'BSC');
    expect(estimate).toMatchObject({ fee: '1', feeCurrency: 'USDT', mode: 'taken' });
    expect(feeEstimate([last], 'USDT', 'ETH')).toBeUndefined();
    const next = request(usdt('5000'));
    const text = cardText(next, { ...facts, feeEstimate: (c, n) => feeEstimate([last], c, n) });
    expect(text).toContain(
      '*Fee (estimate)*\n≈ 1.00 USDT · payee receives ≈ 4,999.00 USDT\n_estimate: the last fee charged on BSC, <!date^',
    );
    expect(cardText(next)).toContain('*Fee (estimate)*\n_unknown yet_');
  });

  it('a long note is shown whole within the section limit, or says it was shortened and where to read it', () => {
    const medium = request(usdt('250', { note: 'n'.repeat(1000) }));
    expect(cardText(medium)).toContain(`*Note*\n${'n'.repeat(1000)}`);
    const long = request(usdt('250', { note: `${'x'.repeat(4000)}END` }));
    const rendered = renderCard(long, facts, 'testnet');
    const note = (rendered.blocks as Array<{ text?: { text: string } }>).find((b) => b.text?.text.startsWith('*Note*'))!
      .text!.text;
    expect(note).toMatch(/^\*Note\* \(shortened: the full note is in the audit log, `\/treasury audit export`\)\n/);
    expect(note.length).toBeLessThanOrEqual(3000);
    expect(note).not.toContain('END');
  });

  it('flags risks in their own section above the fields, and names the client wallet as the source', () => {
    const blocks = renderCard(request(), facts, 'testnet').blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks[1]).toMatchObject({
      type: 'section',
      text: { text: ':warning: *Check before approving:* not on the allowlist · never paid before' },
    });
    expect(cardText(request())).toContain('*From client wallet*\nclient@example.com');
  });

  it('shows the value in cents and the unit price it used with four significant digits below $10', () => {
    const at = new Date(T0).toISOString();
    const valued = (price: string, usd: string): WithdrawalRequest => ({
      ...request(),
      valuation: { kind: 'known', usd, price, at, source: 'CoinGecko' },
    });
    expect(cardText(valued('0.99840704', '249.61'))).toContain('≈ $249.61 _at $0.9984 (CoinGecko, ');
    expect(cardText(valued('0.0000123456', '0.01'))).toContain('≈ $0.01 _at $0.00001235 (CoinGecko, ');
    expect(cardText(valued('3100.456', '775113.99'))).toContain('≈ $775,113.99 _at $3,100.46 (CoinGecko, ');
  });
});

describe('thread lines and DMs', () => {
  it('thread texts are plain sentences: no raw *bold* in a notification', () => {
    const r = {
      ...sent({}),
      confirmation: { status: 'CONFIRMED', transactionHash: '0xabc', updatedAt: new Date(T0).toISOString() },
    };
    for (const ref of ['w1|confirmation|CONFIRMED', 'w1|contradiction|FAILED <@U0ERIN>', 'w1|approved|U0CAROL']) {
      const line = renderThread(ref, () => r, 'testnet')!.text;
      expect(line, ref).not.toMatch(/\*/);
    }
    expect(renderThread('w1|confirmation|CONFIRMED', () => r, 'testnet')!.text).toMatch(
      /^Transfer status from the wallet service: confirmed · <https:/,
    );
    expect(renderThread('w1|approved|U0CAROL', () => r, 'testnet')!.text).toBe('<@U0CAROL> approved (1 of 1).');
  });

  it('a rejection DM ends with the quoted reason, not a stray full stop', () => {
    const r = then(request(), {
      type: 'reject',
      user: 'U0DAVE',
      isApprover: true,
      reason: 'Call the client by phone first.',
    });
    expect(
      renderDm(
        'w1|rejected',
        () => r,
        () => ({ channel: 'C0APPROVALS' }),
      )!.text,
    ).toBe(
      '⛔ Rejected · your withdrawal of 250.00 USDT on BSC to `0x2222…2222` was rejected by <@U0DAVE>: “Call the client by phone first.”\nThe card is in <#C0APPROVALS>.',
    );
  });
});

describe('fees', () => {
  it('settled numbers add up, and an estimate from them gives the same numbers for the same amount', () => {
    const dec = fc
      .tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 999_999 }))
      .map(([i, f]) => `${i}.${String(f).padStart(6, '0')}`.replace(/\.?0+$/, ''));
    fc.assert(
      fc.property(dec, fc.integer({ min: 1, max: 1000 }), fc.boolean(), (amount, feeMicro, takenOut) => {
        const fee = String(feeMicro / 1000);
        const r = {
          amount,
          currency: 'USDT',
          result: {
            source: 'wallet' as const,
            serviceReference: 's',
            fee,
            feeCurrency: 'USDT',
            transactionHash: null,
            amountRequested: amount,
            amount: amount,
          },
        };
        if (takenOut) {
          const delivered = expectedSettlement(amount, {
            fee,
            feeCurrency: 'USDT',
            mode: 'taken',
            chargedAt: '',
          }).delivered;
          if (Number(delivered) <= 0) return;
          r.result.amount = delivered;
        }
        const s = settlementOf(r)!;
        expect(s.mode).toBe(takenOut ? 'taken' : 'on_top');
        const e = expectedSettlement(amount, { fee, feeCurrency: 'USDT', mode: s.mode!, chargedAt: '' });
        expect([e.debited, e.delivered]).toEqual([s.debited, s.delivered]);
      }),
    );
  });
});
