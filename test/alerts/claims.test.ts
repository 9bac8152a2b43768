/**
 * Every notification kind is a claim (ARCHITECTURE.md invariant 14), not only deposits: a
 * withdrawal, remittance or transfer is shown as confirmed and "checked against the wallet's
 * history" only once the history (the sandbox's transaction list, over HTTP) lists its hash as
 * a record of its kind with the same amount, currency and network. Until then it is "reported";
 * a miss after `alerts.verify_grace` is flagged and the admins told, as for deposits.
 * (Withdrawals the app made themselves: our-withdrawals.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { judge, ourWithdrawal } from '../../src/alerts/claims.js';
import { AUDIT_COLLECTION, type AuditEntry } from '../../src/audit/log.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { hashOf, send, startPipeline, TRUST_POLICY, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const POLICY = TRUST_POLICY;
const alertOf = (hash: string) => p!.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.hash === hash)[0]!;
const top = (channel: string) => p!.fake.channel(channel).filter((m) => !m.thread_ts);
/** Every version of every top-level message ever sent to the channel: posts and edits. */
const everything = (channel: string) =>
  p!.fake
    .calls()
    .filter((c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.args.channel === channel)
    .filter((c) => !c.args.thread_ts)
    .map((c) => JSON.stringify(c.args));
const SAID_CONFIRMED = /white_check_mark|checked against the wallet's history/;
const notices = () => top('C0APPROVALS').map((m) => m.text ?? '');
const audited = (action: string) =>
  p!.store
    .all<AuditEntry>(AUDIT_COLLECTION)
    .filter((e) => e.action === action)
    .map((e) => e.subject);

/** A withdrawal notification as the service documents it (camelCase), from a dashboard: no reference of ours. */
function withdrawal(o: { hash: string; amount: string; currency?: string; network?: string }): string {
  return JSON.stringify({
    transactionType: 'WITHDRAW',
    data: {
      checksum: 'F'.repeat(128),
      receiverAddress: '0x3333333333333333333333333333333333333333',
      amountRequested: o.amount,
      amountSent: o.amount,
      charge: '0',
      currency: o.currency ?? 'USDT',
      networkChain: o.network ?? 'BSC',
      status: 'CONFIRMED',
      transactionHash: o.hash,
    },
  });
}

/** Puts these records in the sandbox's transaction list (its history), stamped now. */
function history(
  records: Array<{ hash: string; type: 'Deposit' | 'Withdrawal'; amount: string; currency?: string; network?: string }>,
): void {
  p!.sandbox.resetTransactions(
    records.map((r) => ({
      transactionHash: r.hash,
      transactionType: r.type,
      amount: r.amount,
      currency: r.currency ?? 'USDT',
      network: r.network ?? 'BSC',
      transactionTimeStamp: Date.now(),
    })),
  );
}

describe('a withdrawal notification is a claim until its own record in the history matches', () => {
  it('a made-up hash on a CONFIRMED withdrawal: reported, checking, never ✅; after the grace flagged, the admins told', async () => {
    let clock = Date.now();
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY), now: () => clock } });
    const madeUp = hashOf(0xa1);
    expect((await send(p.webhookUrl, withdrawal({ hash: madeUp, amount: '2000000' }))).status).toBe(200);
    await p.alerts.idle();
    await p.outbox.drain();
    expect(top('C0WITHDRAW').map((m) => m.text)).toEqual([
      'Withdrawal of 2,000,000.00 USDT on BSC: Reported by the wallet service · checking',
    ]);
    expect(alertOf(madeUp).verification.state).toBe('not_found');

    // Past the grace, still not in the history: the message says it may be forged; the admins hear of it.
    clock += 31_000;
    await p.alerts.verifyPending();
    await p.outbox.drain();
    expect(JSON.stringify(top('C0WITHDRAW')[0]!.blocks)).toContain(
      "⚠️ Not in the wallet's history after 30 seconds: this notification may be forged",
    );
    expect(notices()).toEqual([
      ":rotating_light: <@U0ERIN> A withdrawal reported confirmed is not in the wallet's history after 30 seconds: the notification may be forged.",
    ]);
    expect(audited('alert.not_in_history')).toEqual([alertOf(madeUp).id]);
    expect(everything('C0WITHDRAW').filter((m) => SAID_CONFIRMED.test(m))).toEqual([]);
  });

  it('the hash of a real but unrelated transaction (a deposit of another amount) is no record of it: never ✅, flagged after the grace', async () => {
    let clock = Date.now();
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY), now: () => clock } });
    const real = hashOf(0xb1);
    history([{ hash: real, type: 'Deposit', amount: '150.25' }]);
    await send(p.webhookUrl, withdrawal({ hash: real, amount: '2000000', currency: 'DAI', network: 'ETH' }));
    await p.alerts.idle();
    await p.outbox.drain();
    expect(alertOf(real).verification.state).toBe('not_found');
    expect(top('C0WITHDRAW')[0]!.text).toBe(
      'Withdrawal of 2,000,000.00 DAI on ETH: Reported by the wallet service · checking',
    );

    clock += 31_000;
    await p.alerts.verifyPending();
    await p.outbox.drain();
    expect(alertOf(real).verification.flaggedAt).toBe(clock);
    expect(notices()).toHaveLength(1);
    expect(everything('C0WITHDRAW').filter((m) => SAID_CONFIRMED.test(m))).toEqual([]);
  });

  it('its own record (a withdrawal, same hash) naming another amount is a contradiction at once; one that matches every field is confirmed', async () => {
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY) } });
    const [forged, genuine] = [hashOf(0xc1), hashOf(0xc2)];
    history([
      { hash: forged, type: 'Withdrawal', amount: '12.5' },
      { hash: genuine, type: 'Withdrawal', amount: '12.5' },
    ]);
    await send(p.webhookUrl, withdrawal({ hash: forged, amount: '2000000' }));
    await send(p.webhookUrl, withdrawal({ hash: genuine, amount: '12.50' }));
    await p.alerts.idle();
    await p.outbox.drain();
    expect(alertOf(forged).verification).toMatchObject({
      state: 'contradicted',
      mismatch: [{ field: 'amount', claimed: '2000000', listed: '12.5' }],
    });
    expect(audited('alert.contradicted')).toEqual([alertOf(forged).id]);
    expect(notices()).toEqual([
      ':rotating_light: <@U0ERIN> A notification disagreed with the wallet service: it may be forged.',
    ]);
    expect(alertOf(genuine).verification.state).toBe('confirmed');
    const shown = (hash: string) =>
      top('C0WITHDRAW')
        .map((m) => JSON.stringify(m))
        .filter((m) => m.includes(hash.slice(-8)));
    expect(shown(forged).join()).not.toMatch(SAID_CONFIRMED);
    expect(shown(genuine).join()).toMatch(SAID_CONFIRMED);
  });
});

describe('a remittance is held to its record the same way', () => {
  it('a genuine remittance (the sandbox lists it as a withdrawal under its reference) reads confirmed and checked; another amount under its hash is contradicted', async () => {
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY) } });
    await p.wallet.setWebhookUrl(p.webhookUrl);
    const to = `0x${'12'.repeat(20)}`;
    const r = await p.sandbox.remittance({ to, amount: '75.25', currency: 'USDT', network: 'BSC', reference: 'rem-1' });
    const end = Date.now() + 5000;
    const settled = (a: Alert | undefined) => a?.status === 'CONFIRMED' && a.verification.state === 'confirmed';
    while (!settled(alertOf(r.transactionHash))) {
      if (Date.now() > end) throw new Error(`not confirmed: ${JSON.stringify(alertOf(r.transactionHash))}`);
      await new Promise((res) => setTimeout(res, 20));
    }
    await p.alerts.idle();
    await p.outbox.drain();
    const msg = top('C0ALERTS').find((m) => JSON.stringify(m).includes('75.25'))!;
    expect(msg.text).toBe('Remittance of 75.25 USDT on BSC: confirmed');
    expect(JSON.stringify(msg.blocks)).toContain(
      "Notified by the wallet service and checked against the wallet's history.",
    );

    // Another remittance whose record names another amount; one whose hash is listed only as a deposit.
    const [other, deposit] = [hashOf(0xd1), hashOf(0xd2)];
    history([
      { hash: other, type: 'Withdrawal', amount: '10' },
      { hash: deposit, type: 'Deposit', amount: '75000' },
    ]);
    const remittance = (hash: string) =>
      `{"transactionType":5,"data":{"amount":"75000","charge":"0","currency":"USDT","networkChain":"BSC","status":3,"transactionHash":"${hash}","senderAddress":"${r.senderAddress}","receiverAddress":"${to}","reference":"rem-x"}}`;
    await send(p.webhookUrl, remittance(other));
    await send(p.webhookUrl, remittance(deposit));
    await p.alerts.idle();
    expect(alertOf(other).verification).toMatchObject({ state: 'contradicted', mismatch: [{ field: 'amount' }] });
    expect(alertOf(deposit).verification.state).toBe('not_found');
  });
});

describe('the pure judgement of a claim', () => {
  const record = { type: 'deposit' as const, amount: '10', currency: 'USDT', network: 'TRON' };
  it('confirmed only when the claim and its record both carry every field and agree on each', () => {
    const claim = { kind: 'deposit' as const, amount: '10', currency: 'USDT', network: 'TRON' };
    expect(judge(claim, [record]).kind).toBe('match');
    // A field missing on either side is never a match: checking, then flagged after the grace.
    expect(judge({ kind: 'deposit', amount: '10' }, [record]).kind).toBe('miss');
    expect(judge(claim, [{ type: 'deposit' as const, amount: '10', network: 'TRON' }]).kind).toBe('miss');
    expect(judge({ ...claim, amount: undefined }, [record]).kind).toBe('miss');
    // A field both name differently is a contradiction.
    expect(judge({ ...claim, currency: 'BTC' }, [record]).kind).toBe('mismatch');
  });

  it('our withdrawal found "never executed" that the service reports after all is never settled as failed', () => {
    expect(ourWithdrawal('m1', { state: 'failed', confirmation: { status: 'CONFIRMED' } }).settled).toBe('CONFIRMED');
    expect(ourWithdrawal('m1', { state: 'failed', confirmation: { status: 'PENDING' } }).settled).toBeUndefined();
    expect(ourWithdrawal('m1', { state: 'failed' }).settled).toBe('FAILED');
    expect(ourWithdrawal('m1', { state: 'completed', confirmation: { status: 'CONFIRMED' } }).settled).toBe(
      'CONFIRMED',
    );
  });
});
