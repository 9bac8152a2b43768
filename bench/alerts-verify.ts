/**
 * The alerts bench's verification case: 20 genuine deposits a second for 60 s
 * (ALERTS_BENCH_SECONDS shortens it), made in the sandbox, which lists each one and notifies
 * our webhook route over HTTP (PENDING, then CONFIRMED). The sandbox and the fake Slack run in
 * the world child process (bench/world.ts), as remote services do.
 *
 * Two runs, same load: the batched sweep (src/alerts/sweep.ts, production pace) and, as the
 * baseline, the per-hash path it replaced (one list call per notification, with its retries).
 * Figures: transaction-list calls per second, first alert p50/p99 (the deposit made to the
 * first Slack message showing its hash), and deposits confirmed against the list by the end.
 */
import { WebClient } from '@slack/web-api';
import { ALERT_COLLECTIONS, createAlerts, type Alert } from '../src/alerts/index.js';
import { startHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createOutbox } from '../src/outbox/index.js';
import { parsePolicy } from '../src/policy/load.js';
import { registerAlertRenderers } from '../src/slack/alert-messages.js';
import { openStore } from '../src/store/index.js';
import { createWalletClient } from '../src/wallet/client.js';
import { makeTempDir, nowMs, percentile, removeDir, result, type BenchResult } from './lib.js';
import { startWorld } from './world-client.js';
import { fixedPolicy } from '../src/policy/source.js';

const SECONDS = Number(process.env.ALERTS_BENCH_SECONDS ?? 60);
const RATE = 20;
const CHANNEL = 'C0ALERTS';
const SECRET = 'bench_verify_secret_0123456789abcdef';
const CLIENTS = 10;
const SETTLE_MS = 15_000;
const logger = createLogger({ level: 'silent' });
const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: ${CHANNEL} }
people: { approvers: [U0CAROL] }
withdrawals: { tiers: { default: [ { approvals: 1 } ] } }
`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  listCallsPerSecond: number;
  hashCalls: number;
  p50: number;
  p99: number;
  shown: number;
  confirmed: number;
  total: number;
}

async function runOnce(mode: 'sweep' | 'per-hash'): Promise<Run> {
  const world = await startWorld();
  const dir = await makeTempDir('bench-alerts-verify');
  const store = await openStore({ dir, logger });
  const client = new WebClient('xoxb-bench-verify', {
    slackApiUrl: world.info.fakeSlackUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const outbox = createOutbox({ store, client, logger });
  registerAlertRenderers(outbox, store, { policy: fixedPolicy(policy) });
  const m = world.info.merchant;
  const wallet = createWalletClient({ baseUrl: world.info.sandboxUrl, ...m, logger });
  const alerts = createAlerts({
    store,
    outbox,
    wallet,
    policy: fixedPolicy(policy),
    logger,
    secret: SECRET,
    ...(mode === 'per-hash' ? { verifyDepositsByHash: true } : {}),
  });
  const http = await startHttpServer([{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }], {
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  outbox.start();
  try {
    await wallet.setWebhookUrl(`${http.url}/webhooks/wallet/${SECRET}`);
    const emails = Array.from({ length: CLIENTS }, (_, i) => `bench${i}@client.example`);
    for (const e of emails) await world.setBalance(e, 'USDT', 'BSC', '0');
    const before = await world.countRequests('transaction-record', 'TransactionHash=');

    const total = RATE * SECONDS;
    const madeAt = new Map<string, number>();
    const firstShown = new Map<string, number>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const msgs = await world.channel(CHANNEL);
        const t = nowMs();
        const text = msgs.map((x) => JSON.stringify(x.blocks ?? x.text)).join('\n');
        for (const h of madeAt.keys()) if (!firstShown.has(h) && text.includes(h)) firstShown.set(h, t);
        await sleep(100);
      }
    })();
    const start = nowMs();
    const made: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / RATE - nowMs();
      if (wait > 0) await sleep(wait);
      const t = nowMs();
      made.push(
        world.deposit(emails[i % CLIENTS]!, `${(i % 500) + 1}.25`, 'USDT', 'BSC').then(({ hash }) => {
          madeAt.set(hash, t);
        }),
      );
    }
    await Promise.all(made);
    const runEnd = nowMs();
    // Let the last ones be shown and checked.
    const deadline = nowMs() + SETTLE_MS;
    while (nowMs() < deadline && firstShown.size < total) await sleep(200);
    polling = false;
    await poll;
    const after = await world.countRequests('transaction-record', 'TransactionHash=');
    const elapsed = (runEnd - start) / 1000;
    const latencies = [...firstShown.entries()].map(([h, t]) => t - madeAt.get(h)!);
    const confirmed = store.find<Alert>(ALERT_COLLECTIONS.alerts, (a) => a.verification.state === 'confirmed').length;
    return {
      listCallsPerSecond: (after.count - before.count) / elapsed,
      hashCalls: after.matching - before.matching,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      shown: firstShown.size,
      confirmed,
      total,
    };
  } finally {
    await http.close();
    await alerts.stop();
    await outbox.stop();
    await store.close();
    await removeDir(dir);
    await world.close();
  }
}

export async function verificationAtVolume(): Promise<BenchResult[]> {
  const sweep = await runOnce('sweep');
  const perHash = await runOnce('per-hash');
  const c = `verification on: ${RATE}/s for ${SECONDS} s (${sweep.total} deposits; baseline: the per-hash look-up)`;
  return [
    result({
      bench: 'alerts',
      case: c,
      metric: 'wallet list calls per second',
      value: sweep.listCallsPerSecond,
      unit: 'calls/s',
      baseline: perHash.listCallsPerSecond,
      better: 'lower',
    }),
    result({
      bench: 'alerts',
      case: c,
      metric: 'first alert p50',
      value: sweep.p50,
      unit: 'ms',
      baseline: perHash.p50,
      better: 'lower',
    }),
    result({
      bench: 'alerts',
      case: c,
      metric: 'first alert p99',
      value: sweep.p99,
      unit: 'ms',
      baseline: perHash.p99,
      better: 'lower',
    }),
    result({
      bench: 'alerts',
      case: c,
      metric: 'deposits shown',
      value: sweep.shown,
      unit: 'deposits',
      baseline: perHash.shown,
      better: 'higher',
    }),
    result({
      bench: 'alerts',
      case: c,
      metric: 'deposits confirmed against the list',
      value: sweep.confirmed,
      unit: 'deposits',
      baseline: perHash.confirmed,
      better: 'higher',
    }),
    result({
      bench: 'alerts',
      case: c,
      metric: 'look-ups by hash',
      value: sweep.hashCalls,
      unit: 'calls',
      baseline: perHash.hashCalls,
      better: 'lower',
    }),
  ];
}
