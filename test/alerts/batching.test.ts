/**
 * Alerts at volume, end to end: signed-free webhooks into the real receiver, the real outbox,
 * and the recording fake Slack with Slack's rate limits switched on (sped up tenfold).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { COLLECTIONS, type OutboxEntry } from '../../src/outbox/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { slackRateLimits, type SlackRateLimiter } from '../helpers/slack-rate-limits.js';
import { depositSample, listDeposits, send, startPipeline, type Pipeline, type PipelineOptions } from './setup.js';

let p: Pipeline | undefined;
let limits: SlackRateLimiter;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const hashOf = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const top = (channel: string) => p!.fake.channel(channel).filter((m) => !m.thread_ts);
const shown = (m: FakeMessage) => JSON.stringify(m.blocks);
/** The lines of a batch message: every section after the header, split. */
const linesOf = (m: FakeMessage) =>
  (m.blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((b) => b.type === 'section')
    .flatMap((b) => b.text!.text.split('\n'));
const headerOf = (m: FakeMessage) =>
  (m.blocks as Array<{ type: string; text?: { text: string } }>).find((b) => b.type === 'header')?.text?.text;

async function start(o: PipelineOptions = {}): Promise<Pipeline> {
  limits = slackRateLimits({ timeScale: 10 });
  // Paced just under the (sped-up) limits, as production is under the real ones.
  p = await startPipeline({ gate: limits.gate, outbox: { paceMs: 120, updatePaceMs: 150, baseBackoffMs: 20 }, ...o });
  return p;
}

async function deposit(i: number, status: number | string, amount = String(10 + i)): Promise<void> {
  const r = await send(p!.webhookUrl, depositSample({ hash: hashOf(i), status, amount }));
  expect(r.status).toBe(200);
}

describe('alerts batched per channel', () => {
  it('deposits waiting at one posting slot become one message, a line each; later statuses edit their lines in one chat.update', async () => {
    await start({ startOutbox: false });
    // Only the large one is in the wallet's history: confirmed, a message of its own and an @here after it.
    listDeposits(p!, [{ hash: hashOf(100), amount: '20000' }]);
    for (let i = 1; i <= 12; i++) await deposit(i, 2);
    await deposit(100, 2, '20000');
    await deposit(101, 'FAILED', '5'); // failed, never seen pending: it moved no money, a line of the batch
    await p!.alerts.idle();
    p!.outbox.start();
    await p!.outbox.drain();

    const msgs = top('C0USDT');
    expect(msgs).toHaveLength(3);
    // Corroborated first (the large deposit, then its @here), then the claims, together.
    const [large, here, batch] = msgs as [FakeMessage, FakeMessage, FakeMessage];
    expect(large.text).toMatch(/^Deposit of 20,000.00 USDT on BSC: pending$/);
    expect(here.text).toMatch(/^<!here> Large deposit confirmed by the wallet's history: \*20,000.00 USDT\*/);
    // 11 + 12 + ... + 22 = 198 and 5, none counted: the history shows none of them.
    expect(headerOf(batch)).toBe('13 deposits (13 reported, not counted until confirmed)');
    const lines = linesOf(batch);
    expect(lines).toHaveLength(13);
    for (let i = 1; i <= 12; i++) {
      const line = lines[i - 1]!;
      expect(line).toContain(`*${10 + i}.00 USDT*`);
      expect(line).toContain('BSC');
      expect(line).toContain('client@example.com');
      expect(line).toContain('pending · reported');
      expect(line).toContain(`https://bscscan.com/tx/${hashOf(i)}`);
    }
    expect(lines[12]).toMatch(/^:x: \*5.00 USDT\* .* \*failed\*/);

    // Every status that follows, while the worker is away: one edit of the batch message.
    await p!.outbox.stop();
    for (let i = 1; i <= 12; i++) await deposit(i, 3);
    p!.outbox.start();
    await p!.outbox.drain();
    const updates = p!.fake.calls('chat.update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.args.ts).toBe(batch.ts);
    const after = top('C0USDT')[2]!;
    expect(linesOf(after).filter((l) => l.includes('reported · checking'))).toHaveLength(12);
    expect(shown(after)).not.toContain('pending');
    expect(shown(after)).not.toContain('white_check_mark');
    // A line has no thread of its own: the status-change replies are not posted under the batch.
    expect(p!.fake.thread('C0USDT', batch.ts)).toEqual([]);
    expect(top('C0USDT')).toHaveLength(3);
    expect(limits.limited).toEqual({});
    const entries = p!.store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.filter((e) => e.state !== 'done')).toEqual([]);
  });

  it('a line that later fails is edited AND gets a message of its own; a lone alert stays a message of its own', async () => {
    await start({ startOutbox: false });
    for (let i = 1; i <= 3; i++) await deposit(i, 2);
    p!.outbox.start();
    await p!.outbox.drain();
    expect(top('C0USDT')).toHaveLength(1);

    await deposit(2, 'FAILED');
    await p!.outbox.drain();
    const msgs = top('C0USDT');
    expect(msgs).toHaveLength(2);
    expect(linesOf(msgs[0]!)[1]).toMatch(/:x: .*\*failed\*/);
    expect(msgs[1]!.text).toMatch(/^Warning: Deposit of 12.00 USDT/);
    expect(shown(msgs[1]!)).toContain(hashOf(2));

    // A deposit alone at its slot is posted as today, and its own failure edits it (no second message).
    await deposit(50, 2);
    await p!.outbox.drain();
    expect(top('C0USDT')).toHaveLength(3);
    expect(headerOf(top('C0USDT')[2]!)).toBe('Deposit of 60.00 USDT on BSC');
    await deposit(50, 'FAILED');
    await p!.outbox.drain();
    expect(top('C0USDT')).toHaveLength(3);
    expect(top('C0USDT')[2]!.text).toMatch(/^Warning: Deposit of 60.00 USDT/);
  });

  it('a stream of deposits under the rate limits: every one shown once with its final status, far fewer posts than deposits', async () => {
    await start();
    const n = 60;
    const sends: Array<Promise<void>> = [];
    for (let i = 1; i <= n; i++) {
      sends.push(deposit(i, 2));
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 30));
    }
    await Promise.all(sends);
    // The wallet's history lists them: every one ends confirmed.
    listDeposits(
      p!,
      Array.from({ length: n }, (_, k) => ({ hash: hashOf(k + 1), amount: String(11 + k) })),
    );
    for (let i = 1; i <= n; i++) await deposit(i, 3);
    await p!.alerts.idle();
    await p!.outbox.drain(20_000);

    const posts = top('C0USDT');
    const allLines = posts.flatMap((m) => (headerOf(m)?.match(/^\d+ deposits/) ? linesOf(m) : [shown(m)]));
    for (let i = 1; i <= n; i++) {
      const mine = allLines.filter((l) => l.includes(hashOf(i)));
      expect(mine, `deposit ${i}`).toHaveLength(1);
      expect(mine[0]).toMatch(/confirmed/);
    }
    expect(posts.length).toBeLessThan(n / 3);
    expect(p!.store.count(ALERT_COLLECTIONS.alerts)).toBe(n);
  });
});

describe('live first', () => {
  it('corroborated first: findings of the wallet history go out at the next slot ahead of a claim, edits and thread details waiting for the channel', async () => {
    await start({ startOutbox: false });
    listDeposits(p!, [{ hash: hashOf(7), amount: '20000' }]);
    await deposit(7, 2, '20000'); // large and in the history: a message of its own, so it has a thread
    await p!.alerts.idle();
    p!.outbox.start();
    await p!.outbox.drain();
    await p!.outbox.stop();

    // While the worker is away: reconciliation findings (deposits no webhook told us about),
    // an edit and a thread line for deposit 7, and then a new claim the history does not show.
    for (let i = 0; i < 6; i++) {
      p!.sandbox.setBalance(`quiet${i}@example.com`, 'USDT', 'BSC', '0');
      await p!.sandbox.deposit({ to: `quiet${i}@example.com`, amount: '1', currency: 'USDT', network: 'BSC' });
    }
    expect((await p!.alerts.reconcile()).created).toHaveLength(6);
    await deposit(7, 3, '20000');
    await deposit(8, 2);
    const postsBefore = p!.fake.calls('chat.postMessage').length;
    p!.outbox.start();
    await p!.outbox.drain();

    const posted = p!.fake.calls('chat.postMessage').slice(postsBefore);
    expect(posted).toHaveLength(2);
    // The first slot: the findings, with the claim as the last line.
    const first = top('C0USDT')[2]!;
    expect(first.ts).toBe((posted[0]!.response as { ts: string }).ts);
    expect(linesOf(first)).toHaveLength(7);
    expect(
      linesOf(first)
        .slice(0, 6)
        .every((l) => l.includes("found in the wallet's history, no notification received")),
    ).toBe(true);
    expect(linesOf(first)[6]).toContain(hashOf(8));
    // The thread detail last; the edit went through chat.update on its own clock.
    expect(posted[1]!.args.thread_ts).toBe(top('C0USDT')[0]!.ts);
    expect(p!.fake.calls('chat.update')).toHaveLength(1);
  });
});

describe('unknown notifications', () => {
  it('a flood of unknown shapes is stored and counted in one message per channel per hour, and never delays a deposit', async () => {
    let clock = Date.now();
    // Everything waits for the first slot, so the lane must choose: the deposit shares the
    // unknowns' channel (a BTC deposit goes to the alerts channel) and must go first.
    await start({ alerts: { now: () => clock }, startOutbox: false });
    for (let i = 0; i < 30; i++) {
      expect((await send(p!.webhookUrl, { event: 'mystery', n: i })).status).toBe(200);
      if (i === 15)
        expect(
          (await send(p!.webhookUrl, depositSample({ hash: hashOf(1), status: 2, currency: 'BTC', amount: '0.1' })))
            .status,
        ).toBe(200);
    }
    p!.outbox.start();
    await p!.outbox.drain();
    const unknown = p!.store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.kind === 'unknown');
    expect(unknown).toHaveLength(30);
    const all = top('C0ALERTS');
    expect(all).toHaveLength(2);
    expect(all[0]!.text).toMatch(/^Deposit of 0\.1 BTC/);
    const isUnknown = (m: FakeMessage) =>
      /notifications? from the wallet service in a form we do not recognise/.test(m.text ?? '');
    const msgs = all.filter(isUnknown);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toBe(all[1]);
    expect(msgs[0]!.text).toMatch(
      /^30 notifications from the wallet service in a form we do not recognise since <!date\^\d+\^\{time\}\|[^>]+>; `\/treasury status` lists the latest$/,
    );
    expect(shown(msgs[0]!)).toContain('mystery');
    expect(p!.alerts.unknownSummary()).toMatchObject({ total: 30, lastHour: 30 });
    expect(p!.alerts.unknownSummary().text).toMatch(/^30 stored, 30 in the last hour; latest:\n/);

    // An hour later: a new message starts.
    clock += 3_600_000;
    await send(p!.webhookUrl, { event: 'mystery', n: 'later' });
    await p!.outbox.drain();
    expect(top('C0ALERTS').filter(isUnknown)).toHaveLength(2);
    expect(top('C0ALERTS').filter(isUnknown)[1]!.text).toMatch(
      /^1 notification from the wallet service in a form we do not recognise/,
    );
  });
});
