/**
 * A notification is a claim (ARCHITECTURE.md invariant 14): webhooks carry no signature, so a
 * deposit is shown as confirmed, counted or @mentioned only once the wallet's own history (the
 * sandbox's transaction list, over HTTP) shows it with the same amount, currency and network.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { AUDIT_COLLECTION, type AuditEntry } from '../../src/audit/log.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { depositSample, hashOf, listDeposits, send, startPipeline, TRUST_POLICY, type Pipeline } from './setup.js';
import { fixedPolicy } from '../../src/policy/source.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const POLICY = TRUST_POLICY;
const top = (channel: string) => p!.fake.channel(channel).filter((m) => !m.thread_ts);
const shown = (m: FakeMessage) => `${m.text}\n${JSON.stringify(m.blocks)}`;
const alertOf = (hash: string) => p!.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.hash === hash)[0]!;
const audit = () => p!.store.all<AuditEntry>(AUDIT_COLLECTION);

describe('a deposit is a claim until the wallet history confirms it', () => {
  it('a forged 999,999 USDT "CONFIRMED" deposit: reported, checking; never ✅, never @here; after the grace flagged, the admins told once', async () => {
    let clock = Date.now();
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY), now: () => clock } });
    const forged = hashOf(0xf1);
    expect((await send(p.webhookUrl, depositSample({ hash: forged, status: 3, amount: '999999' }))).status).toBe(200);
    await p.alerts.idle();
    await p.outbox.drain();
    const [msg] = top('C0USDT');
    expect(top('C0USDT')).toHaveLength(1);
    expect(msg!.text).toBe('Deposit of 999,999.00 USDT on BSC: Reported by the wallet service · checking');
    expect(shown(msg!)).toContain('*Status*\\n:mag: Reported by the wallet service · checking');
    expect(shown(msg!)).not.toMatch(/<!here>|white_check_mark|Large deposit/);
    expect(alertOf(forged).verification.state).not.toBe('confirmed');

    // 31 s later the history still does not show it: the same message says so, the admins hear of it.
    clock += 31_000;
    await p.alerts.verifyPending();
    await p.outbox.drain();
    expect(top('C0USDT')).toHaveLength(1);
    const edited = shown(top('C0USDT')[0]!);
    expect(edited).toContain("⚠️ Not in the wallet's history after 30 seconds: this notification may be forged");
    expect(edited).not.toMatch(/<!here>|white_check_mark/);
    const notices = top('C0APPROVALS');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toMatch(
      /^:rotating_light: <@U0ERIN> A deposit reported confirmed is not in the wallet's history after 30 seconds/,
    );
    expect(
      audit()
        .filter((e) => e.action === 'alert.not_in_history')
        .map((e) => e.subject),
    ).toEqual([alertOf(forged).id]);

    // A second forged one: its own flag, but the admins' message is updated, not posted again.
    const second = hashOf(0xf2);
    await send(p.webhookUrl, depositSample({ hash: second, status: 3, amount: '500' }));
    await p.alerts.idle();
    clock += 31_000;
    await p.alerts.verifyPending();
    await p.outbox.drain();
    expect(alertOf(second).verification.flaggedAt).toBeDefined();
    expect(top('C0APPROVALS')).toHaveLength(1);
    expect(JSON.stringify(top('C0APPROVALS')[0]!.blocks)).toContain('2 notifications so far');
    // Never counted as confirmed by anyone reading the records.
    expect(p.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.verification.state === 'confirmed')).toEqual([]);
  });

  it('the history shows the hash with another amount: a contradiction, audited, the admins told once, no @here', async () => {
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY) } });
    const hash = hashOf(0xc1);
    listDeposits(p, [{ hash, amount: '100' }]);
    await send(p.webhookUrl, depositSample({ hash, status: 3, amount: '999999' }));
    await p.alerts.idle();
    await p.outbox.drain();
    const a = alertOf(hash);
    expect(a.verification).toMatchObject({
      state: 'contradicted',
      mismatch: [{ field: 'amount', claimed: '999999', listed: '100' }],
    });
    const msg = shown(top('C0USDT')[0]!);
    expect(msg).toContain('A notification disagreed with the wallet service: it may be forged.');
    expect(msg).toContain("The wallet's history shows amount 100 (the notification said 999999)");
    expect(msg).not.toMatch(/<!here>|white_check_mark/);
    expect(top('C0USDT')).toHaveLength(1);
    expect(top('C0APPROVALS').map((m) => m.text)).toEqual([
      ':rotating_light: <@U0ERIN> A notification disagreed with the wallet service: it may be forged.',
    ]);
    expect(audit().filter((e) => e.action === 'alert.contradicted')).toHaveLength(1);
    // Told again (a redelivery with another status): nothing more for the admins.
    await send(p.webhookUrl, depositSample({ hash, status: 'NOT_PROPAGATED', amount: '999999' }));
    await p.alerts.idle();
    await p.outbox.drain();
    expect(top('C0APPROVALS')).toHaveLength(1);
  });

  it('another currency or network is a contradiction too; the same amount written differently is not', async () => {
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY) } });
    const [a, b, c] = [1, 2, 3].map((i) => hashOf(0xd0 + i));
    listDeposits(p, [
      { hash: a!, amount: '150.25', currency: 'BTC' },
      { hash: b!, amount: '150.25', network: 'TRON' },
      { hash: c!, amount: '150.250' },
    ]);
    for (const hash of [a, b, c]) await send(p.webhookUrl, depositSample({ hash, status: 3 }));
    await p.alerts.idle();
    expect(alertOf(a!).verification.mismatch?.map((m) => m.field)).toEqual(['currency']);
    expect(alertOf(b!).verification.mismatch?.map((m) => m.field)).toEqual(['network']);
    expect(alertOf(c!).verification.state).toBe('confirmed');
  });

  it('many deposits are checked a time window at a time: a few list calls, not one per hash', async () => {
    p = await startPipeline({ alerts: { policy: fixedPolicy(POLICY), sweep: { intervalMs: 250, listLagMs: 2000 } } });
    const n = 120;
    listDeposits(
      p,
      Array.from({ length: n }, (_, i) => ({ hash: hashOf(i + 1), amount: String(i + 1) })),
    );
    const listCalls = () => p!.sandbox.stats.requests.filter((r) => r.path.includes('transaction-record')).length;
    const before = listCalls();
    const started = Date.now();
    for (let i = 0; i < n; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          send(p!.webhookUrl, depositSample({ hash: hashOf(i + k + 1), status: 3, amount: String(i + k + 1) })),
        ),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    await p.alerts.idle();
    const end = Date.now() + 5000;
    while (p.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.verification.state === 'confirmed').length < n) {
      if (Date.now() > end) throw new Error('not all confirmed in time');
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (Date.now() - started) / 1000;
    const calls = listCalls() - before;
    // At most a sweep per interval, each of a few pages (a page holds 50, the wallet's page size: the
    // first window, with every listed deposit in it, takes three), and far fewer calls than hashes.
    expect(calls).toBeLessThanOrEqual(Math.ceil(seconds / 0.25) * 3 + 3);
    expect(calls).toBeLessThan(n / 4);
    expect(p.sandbox.stats.requests.some((r) => r.path.includes('TransactionHash='))).toBe(false);
  });
});
