/**
 * /metrics after a scripted story (a deposit webhook, a refused webhook, an approved withdrawal,
 * a lane held back by Slack's rate limit): every series moves, and no label carries a
 * reference, an address, a user or a channel id. Then request ids: a webhook's id is on its
 * own log line and on the outbox's line that posts its alert.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/registry.js';
import { depositSample, send } from '../alerts/setup.js';
import { CHANNELS, freePort, startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { testRenderer } from '../helpers/renderers.js';

const SECRET = 'whk_metrics_test_0123456789abcdef';
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** `name{labels} value` lines of the Prometheus text format, by series. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

describe('/metrics', () => {
  it('shows each series move after a deposit, a refused webhook, an approved withdrawal and a held lane', async () => {
    let holdAlerts = false;
    const metricsPort = await freePort();
    t = await startTestApp({
      env: { WEBHOOK_SECRET: SECRET, METRICS_PORT: String(metricsPort) },
      fakeOptions: {
        gate: (method, args) =>
          holdAlerts && method === 'chat.postMessage' && args.channel === CHANNELS.alerts
            ? { retryAfter: 30 }
            : undefined,
      },
    });
    const a = t;
    expect(a.app.metricsUrl).toBe(`http://127.0.0.1:${metricsPort}/metrics`);
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    const hook = `${a.app.url}/webhooks/wallet/${SECRET}`;

    // A deposit: stored, acknowledged, posted in its routed channel.
    expect((await send(hook, depositSample({ status: 2 }))).status).toBe(200);
    await until('the deposit alert', () => a.fake.channel(CHANNELS.usdt)[0]);
    // A webhook with a wrong secret: refused as an unknown route.
    expect((await send(`${a.app.url}/webhooks/wallet/not-the-secret-000000000000`, depositSample())).status).toBe(404);

    // A withdrawal approved by one approver, sent and completed.
    const { responseUrl } = await a.command('/withdraw', `10 USDT BSC ${DEST} ${CLIENT}`, USERS.alice);
    await a.replies(responseUrl);
    const card = await until('the approval card', () => a.fake.channel(CHANNELS.approvals)[0]);
    const id = a.app.deps.withdrawals.list()[0]!.id;
    await a.click(
      USERS.carol,
      { actionId: 'wd_approve', value: id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    await until('completion', () => a.app.deps.withdrawals.list()[0]!.state === 'completed', 15_000);

    // The alerts lane held by Slack's 429s: five posts wait.
    holdAlerts = true;
    a.app.deps.outbox.registerRenderer(testRenderer('test.filler'), (ref) => ({ text: `filler ${ref}` }));
    await a.app.deps.store.commit((tx) => {
      for (let i = 0; i < 5; i++)
        a.app.deps.outbox.enqueue(tx, {
          op: 'post',
          renderer: testRenderer('test.filler'),
          ref: `f${i}`,
          channel: CHANNELS.alerts,
        });
    });
    await until('a 429 on the alerts lane', () =>
      a.fake.calls('chat.postMessage').some((c) => (c.args as { channel?: string }).channel === CHANNELS.alerts),
    );
    await new Promise((r) => setTimeout(r, 1100));

    const res = await fetch(a.app.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const m = parse(text);
    const v = (series: string) => m.get(series);

    expect(v('treasury_webhooks_received_total{kind="deposit",outcome="created"}')).toBe(1);
    expect(v('treasury_webhooks_received_total{kind="unknown",outcome="unauthorized"}')).toBe(1);
    expect(v('treasury_alert_delay_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(v('treasury_withdrawals_total{outcome="sent"}')).toBe(1);
    expect(v('treasury_withdrawals_pending')).toBe(0);
    expect(v('treasury_approval_wait_seconds_count')).toBe(1);
    expect(v('treasury_wallet_requests_total{operation="withdraw",outcome="ok"}')).toBe(1);
    expect(v('treasury_wallet_request_duration_seconds_count{operation="withdraw"}')).toBe(1);
    expect(v('treasury_verification_callbacks_total{answer="true"}')).toBe(1);
    // The five, and any alert of the withdrawal's own webhook that came after the hold.
    expect(v('treasury_outbox_pending{lane="alerts"}')).toBeGreaterThanOrEqual(5);
    expect(v('treasury_outbox_pending{lane="routed"}')).toBe(0);
    expect(v('treasury_outbox_oldest_age_seconds')).toBeGreaterThan(1);
    expect(v('treasury_slack_api_calls_total{method="chat.postMessage",outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(v('treasury_slack_api_calls_total{method="chat.postMessage",outcome="rate_limited"}')).toBeGreaterThan(0);
    expect(v('treasury_store_commit_duration_seconds_count')).toBeGreaterThan(0);
    expect(v('treasury_store_writable')).toBe(1);
    expect(v('treasury_freeze_active')).toBe(0);
    // Polling jobs run once at start.
    expect(v('treasury_job_last_success_timestamp_seconds{job="withdrawals.expire-and-remind"}')).toBeGreaterThan(
      Date.now() / 1000 - 120,
    );
    expect(v('treasury_job_interval_seconds{job="withdrawals.expire-and-remind"}')).toBeGreaterThan(0);
    expect(v('process_cpu_user_seconds_total')).toBeGreaterThan(0);

    // Labels from fixed sets only.
    const labels = [...m.keys()].join('\n');
    for (const secretish of [DEST, CLIENT, USERS.alice, USERS.carol, CHANNELS.alerts, CHANNELS.usdt, id, SECRET]) {
      expect(labels).not.toContain(secretish);
    }
  }, 60_000);

  it('is off with METRICS_PORT=0, and each app has a registry of its own', async () => {
    t = await startTestApp({ env: { METRICS_PORT: '0' } });
    expect(t.app.metricsUrl).toBeUndefined();
    // Two registries in one process do not collide (prom-client's global one would throw).
    const [x, y] = [createMetrics(), createMetrics()];
    x.withdrawals.inc({ outcome: 'sent' });
    expect(await y.registry.getSingleMetricAsString('treasury_withdrawals_total')).not.toMatch(/outcome="sent"/);
  });
});

describe('request ids in logs', () => {
  it("a webhook's id is on its log line and on the outbox line that posts its alert", async () => {
    t = await startTestApp({ env: { WEBHOOK_SECRET: SECRET } });
    const a = t;
    expect((await send(`${a.app.url}/webhooks/wallet/${SECRET}`, depositSample({ status: 2 }))).status).toBe(200);
    await until('the deposit alert', () => a.fake.channel(CHANNELS.usdt)[0]);
    const lines = () =>
      a
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const received = lines().find((l) => l.msg === 'webhook received');
    expect(received?.reqId).toMatch(/^req_[0-9a-f]{12}$/);
    const posted = await until('the outbox line', () =>
      lines().find((l) => l.msg === 'sent to Slack' && l.renderer === 'alert'),
    );
    expect(posted.reqId).toBe(received!.reqId);
    // And the entry itself records it.
    const entries = a.app.deps.store.find(
      (await import('../../src/outbox/types.js')).COLLECTIONS.entries,
      (e) => e.renderer === 'alert',
    );
    expect(entries[0]?.requestId).toBe(received!.reqId);
  });
});
