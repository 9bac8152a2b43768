/**
 * Whoever learns the webhook URL can post anything, as fast as they like. A flood of forged
 * deposits never buries a real one: through real HTTP to the webhook route, with the sandbox as
 * the wallet service over HTTP and the recording fake Slack at Slack's own pace (1 post a
 * second per channel), a genuine deposit sent right after 1,500 forged ones is shown within
 * 10 seconds; the forged ones end up in one summary, the admins told once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { slackRateLimits } from '../helpers/slack-rate-limits.js';
import { depositSample, POLICY_YAML, send, startPipeline, type Pipeline } from './setup.js';
import { fixedPolicy } from '../../src/policy/source.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const POLICY = parsePolicy(POLICY_YAML.replace('people:\n', 'people:\n  admins: [U0ERIN]\n'));
const forgedHash = (i: number) => `0x${'f'.repeat(8)}${i.toString(16).padStart(56, '0')}`;
const STATUSES = [3, 'FAILED', 'NOT_PROPAGATED'] as const;

describe('a flood of forged deposits', () => {
  it('1,500 forged deposits in 5 s, then a genuine one: shown within 10 s; the forged ones gathered into one summary, the admins told once', async () => {
    const limits = slackRateLimits();
    p = await startPipeline({
      gate: limits.gate,
      // Production's pacing and sweep (a sweep a second; floods as in production).
      outbox: { paceMs: 1100, updatePaceMs: 1250, baseBackoffMs: 200 },
      alerts: {
        policy: fixedPolicy(POLICY),
        sweep: { intervalMs: 1000, listLagMs: 2000, floodThreshold: 6, hashLookupAfterMs: 10_000 },
      },
    });
    await p.wallet.setWebhookUrl(p.webhookUrl);
    p.sandbox.setBalance('payer@example.com', 'USDT', 'BSC', '0');

    // 1,500 forged notifications in 5 s: 30 every 100 ms, a third each CONFIRMED, FAILED, NOT_PROPAGATED.
    const started = Date.now();
    const sends: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < 1500; i += 30) {
      for (let k = i; k < i + 30; k++)
        sends.push(
          send(
            p.webhookUrl,
            depositSample({ hash: forgedHash(k), status: STATUSES[k % 3], amount: String(1000 + (k % 500)) }),
          ),
        );
      const next = started + ((i + 30) / 1500) * 5000;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    expect((await Promise.all(sends)).every((r) => r.status === 200)).toBe(true);

    // The genuine deposit, right after: the sandbox notifies us (PENDING, then CONFIRMED) over HTTP.
    const sentAt = Date.now();
    const tx = await p.sandbox.deposit({ to: 'payer@example.com', amount: '250', currency: 'USDT', network: 'BSC' });
    const shownAt = await new Promise<number>((resolve, reject) => {
      const end = sentAt + 15_000;
      const poll = () => {
        const hit = p!.fake
          .channel('C0USDT')
          .find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(tx.transactionHash));
        if (hit) return resolve(Date.now());
        if (Date.now() > end) return reject(new Error('the genuine deposit was not shown within 15 s'));
        setTimeout(poll, 20);
      };
      poll();
    });
    if (process.env.FLOOD_TEST_VERBOSE) console.log('genuine shown after', shownAt - sentAt, 'ms');
    expect(shownAt - sentAt).toBeLessThan(10_000);
    const genuine = p.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.hash === tx.transactionHash)[0]!;
    expect(genuine.verification.state).toBe('confirmed');

    // The forged ones: a few batch messages from before the flood was recognised, then one summary;
    // never a top-level warning each, never counted as confirmed.
    const top = p.fake.channel('C0USDT').filter((m) => !m.thread_ts);
    if (process.env.FLOOD_TEST_VERBOSE)
      console.log(
        'top-level messages',
        top.length,
        top.map((m) => m.text?.slice(0, 80)),
      );
    expect(top.length).toBeLessThan(25);
    expect(top.filter((m) => /^Warning: Deposit/.test(m.text ?? ''))).toEqual([]);
    const summary = top.filter((m) =>
      / notifications? in the last .* that the wallet's history does not show/.test(m.text ?? ''),
    );
    expect(summary).toHaveLength(1);
    const notices = p.fake.channel('C0APPROVALS');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain('<@U0ERIN>');
    expect(notices[0]!.text).toContain('the webhook URL may be leaked');
    expect(notices[0]!.text).toContain('`/treasury webhook rotate`');
    const forged = p.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.hash?.startsWith('0xffffffff') ?? false);
    expect(forged).toHaveLength(1500);
    expect(forged.filter((a) => a.verification.state === 'confirmed')).toEqual([]);
    expect(forged.filter((a) => a.gathered).length).toBeGreaterThan(1000);
  }, 60_000);
});
