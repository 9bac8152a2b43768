/**
 * Alerts at volume, against a fake Slack that enforces Slack's limits (about one post per
 * second per channel after a small burst, thread replies included; a per-minute budget for
 * chat.update; 429 + Retry-After beyond), with the outbox at its production pacing.
 *
 * - volume: 1, 5 and 20 new deposits per second into one channel for 60 s (ALERTS_BENCH_SECONDS
 *   shortens it for quick runs), each PENDING then CONFIRMED a few seconds later. Figures:
 *   seconds until every deposit shows its final status in the channel (from the first
 *   webhook, and after the last one), posts and updates used, deposits per post; beside them,
 *   what Slack allows in the same time.
 * - verification (bench/alerts-verify.ts): 20 deposits/s for 60 s checked against the wallet's
 *   transaction list, the batched sweep beside the per-hash look-up it replaced.
 * - live latency: webhook ack to the first Slack message showing a new live deposit, p50/p99,
 *   while 1,000 alerts wait for the same channel (a backlog of reconciliation findings; and a
 *   backlog of other live deposits). The limit beside it: 5 s.
 */
import { WebClient } from '@slack/web-api';
import { createAlerts, ingestEvent, type WebhookEvent } from '../src/alerts/index.js';
import { startHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createOutbox, type Outbox } from '../src/outbox/index.js';
import { parsePolicy } from '../src/policy/load.js';
import { registerAlertRenderers } from '../src/slack/alert-messages.js';
import { openStore, type Store } from '../src/store/index.js';
import type { WalletClient } from '../src/wallet/client.js';
import { startFakeSlack, type FakeSlack } from '../test/helpers/fake-slack.js';
import { transactionRecord } from '../test/helpers/transaction-record.js';
import { slackRateLimits, type SlackRateLimiter } from '../test/helpers/slack-rate-limits.js';
import { verificationAtVolume } from './alerts-verify.js';
import { makeTempDir, nowMs, percentile, removeDir, result, type Bench, type BenchResult } from './lib.js';
import { fixedPolicy } from '../src/policy/source.js';

const SECONDS = Number(process.env.ALERTS_BENCH_SECONDS ?? 60);
const RATES = [1, 5, 20];
const CONFIRM_AFTER_MS = 3_000;
const BACKLOG = 1_000;
const LIVE_SAMPLES = Number(process.env.ALERTS_BENCH_LIVE_SAMPLES ?? 20);
const LIVE_GAP_MS = 700;
const LIVE_LIMIT_MS = 5_000;
const GIVE_UP_MS = 15 * 60_000;
const SECRET = 'bench_secret_0123456789abcdefghij';
const CHANNEL = 'C0ALERTS';
const logger = createLogger({ level: 'silent' });
const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: ${CHANNEL} }
people: { approvers: [U0CAROL] }
withdrawals: { tiers: { default: [ { approvals: 1 } ] } }
`);

const hashOf = (run: number, i: number) => `0x${run.toString(16).padStart(4, '0')}${i.toString(16).padStart(60, '0')}`;

function body(hash: string, i: number, status: number): string {
  return (
    `{"TransactionType":1,"Data":{"Checksum":"${'AB'.repeat(64)}","Amount":${(i % 500) + 1}.25,"Charge":0.5,"TotalAmountDeposited":${(i % 500) + 1}.75,` +
    `"DepositAddress":"0x1111111111111111111111111111111111111111","ReceiveAddress":"0x2222222222222222222222222222222222222222",` +
    `"Currency":4,"NetworkChain":"BSC","Status":${status},"MerchantClient":{"Email":"client${i % 100}@example.com"},"TransactionHash":"${hash}"}}`
  );
}

const postJson = (url: string, text: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }).then(async (r) => {
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`status ${r.status}`);
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Rig {
  store: Store;
  fake: FakeSlack;
  limits: SlackRateLimiter;
  outbox: Outbox;
  url: string;
  close(): Promise<void>;
}

/** The wallet's history as a stub: the hashes `listed` holds, newest first (none: no wallet service at all). */
function stubWallet(listed?: Map<string, string>): Pick<WalletClient, 'listTransactions'> {
  if (!listed) return { listTransactions: () => Promise.reject(new Error('no wallet service in this benchmark')) };
  return {
    listTransactions: async () => {
      const records = [...listed]
        .reverse()
        .map(([hash, amount]) =>
          transactionRecord({ hash, amount, currencyName: 'USDT', networkName: 'BSC', timestamp: new Date() }),
        );
      return { records, currentPage: 1, pageSize: records.length, totalPages: 1, totalRecords: records.length };
    },
  };
}

async function rig(startOutbox = true, listed?: Map<string, string>): Promise<Rig> {
  const dir = await makeTempDir('bench-alerts');
  const limits = slackRateLimits();
  const fake = await startFakeSlack({ gate: limits.gate });
  const store = await openStore({ dir, logger });
  const client = new WebClient('xoxb-bench', {
    slackApiUrl: fake.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  // Production pacing: the outbox's defaults.
  const outbox = createOutbox({ store, client, logger });
  registerAlertRenderers(outbox, store);
  const alerts = createAlerts({
    store,
    outbox,
    wallet: stubWallet(listed),
    policy: fixedPolicy(policy),
    logger,
    secret: SECRET,
    verifyRetryDelaysMs: [],
  });
  if (startOutbox) outbox.start();
  const http = await startHttpServer([{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }], {
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  return {
    store,
    fake,
    limits,
    outbox,
    url: `${http.url}/webhooks/wallet/${SECRET}`,
    async close() {
      await http.close();
      await outbox.stop();
      await alerts.stop();
      await store.close();
      await fake.close();
      await removeDir(dir);
    },
  };
}

/** The latest text of the message showing each hash (top-level messages; edits applied by the fake). */
function finalShown(fake: FakeSlack, hashes: Set<string>, final: RegExp): number {
  let n = 0;
  const seen = new Set<string>();
  for (const m of fake.channel(CHANNEL)) {
    if (m.thread_ts) continue;
    const blocks = (m.blocks ?? []) as Array<{ text?: { text?: string }; fields?: Array<{ text: string }> }>;
    const texts = blocks.flatMap((b) => [b.text?.text ?? '', ...(b.fields ?? []).map((f) => f.text)]);
    const lines = texts.flatMap((t) => t.split('\n'));
    const whole = texts.join('\n');
    const single = !/^\d+ deposits/.test(m.text ?? '');
    for (const h of hashes) {
      if (seen.has(h)) continue;
      if (single ? whole.includes(h) && final.test(whole) : lines.some((l) => l.includes(h) && final.test(l))) {
        seen.add(h);
        n++;
      }
    }
  }
  return n;
}

async function volume(rate: number, run: number): Promise<BenchResult[]> {
  const r = await rig();
  try {
    const total = rate * SECONDS;
    const hashes = new Set<string>();
    const start = nowMs();
    const confirms: Array<Promise<void>> = [];
    const sends: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      // Evenly spread: deposit i is due at i / rate seconds.
      const due = start + (i * 1000) / rate;
      const wait = due - nowMs();
      if (wait > 0) await sleep(wait);
      const h = hashOf(run, i);
      hashes.add(h);
      sends.push(postJson(r.url, body(h, i, 2)));
      confirms.push(sleep(CONFIRM_AFTER_MS).then(() => postJson(r.url, body(h, i, 3))));
    }
    await Promise.all(sends);
    await Promise.all(confirms);
    const lastWebhook = nowMs();
    // No wallet service here: a deposit told CONFIRMED by its notification alone ends "reported · checking".
    const final = /:mag: Reported by the wallet service · checking|reported · checking/;
    let done = finalShown(r.fake, hashes, final);
    while (done < total && nowMs() - start < GIVE_UP_MS) {
      await sleep(250);
      done = finalShown(r.fake, hashes, final);
    }
    const end = nowMs();
    const posts = r.limits.allowed['chat.postMessage'] ?? 0;
    const updates = r.limits.allowed['chat.update'] ?? 0;
    const allowed = r.limits.allowance(end - start);
    const c = `${rate}/s for ${SECONDS} s (${total} deposits)`;
    const rows = [
      result({
        bench: 'alerts',
        case: c,
        metric: 'all final (from first webhook)',
        value: (end - start) / 1000,
        unit: 's',
        baseline: SECONDS + CONFIRM_AFTER_MS / 1000,
        better: 'lower',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'all final (after last webhook)',
        value: (end - lastWebhook) / 1000,
        unit: 's',
        better: 'lower',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'deposits shown final',
        value: done,
        unit: 'deposits',
        baseline: total,
        better: 'higher',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'posts used (vs Slack allows)',
        value: posts,
        unit: 'posts',
        baseline: allowed.posts,
        better: 'lower',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'updates used (vs Slack allows)',
        value: updates,
        unit: 'updates',
        baseline: allowed.updates,
        better: 'lower',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'deposits per post',
        value: posts ? total / posts : 0,
        unit: 'deposits',
        baseline: 1,
        better: 'higher',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: '429s received',
        value: (r.limits.limited['chat.postMessage'] ?? 0) + (r.limits.limited['chat.update'] ?? 0),
        unit: 'calls',
        better: 'lower',
      }),
    ];
    return rows;
  } finally {
    await r.close();
  }
}

function event(i: number): WebhookEvent {
  const hash = hashOf(0xfff, i);
  return {
    kind: 'deposit',
    typeName: 'DEPOSIT',
    statusName: 'CONFIRMED',
    hash,
    amount: `${(i % 500) + 1}.5`,
    currency: 'USDT',
    currencyKnown: true,
    network: 'BSC',
    networkKnown: true,
    extra: {},
    body: { source: 'transaction-list', hash },
  };
}

/** Ack-to-first-message latency of live deposits, one every LIVE_GAP_MS, while BACKLOG alerts wait. */
async function liveUnderBacklog(backlog: 'reconciliation findings' | 'live deposits'): Promise<BenchResult[]> {
  // The live deposits are genuine: the wallet's history lists them (a stub answering each sweep),
  // so the app corroborates them as it would in production. The backlog of live deposits is
  // not listed: claims the history does not show (a flood).
  const listed = new Map<string, string>();
  const r = await rig(false, listed);
  try {
    if (backlog === 'reconciliation findings') {
      await r.store.commit((tx) => {
        for (let i = 0; i < BACKLOG; i++) {
          ingestEvent(
            tx,
            { event: event(i), source: 'reconciliation', verification: { state: 'confirmed', attempts: 0 } },
            { outbox: r.outbox, policy, now: Date.now() },
          );
        }
      });
    } else {
      for (let i = 0; i < BACKLOG; i += 50)
        await Promise.all(Array.from({ length: 50 }, (_, k) => postJson(r.url, body(hashOf(0xffe, i + k), i + k, 2))));
    }
    if (r.outbox.pending() < BACKLOG) throw new Error(`backlog not built: ${r.outbox.pending()}`);
    r.outbox.start();
    const latencies: number[] = [];
    let scanned = 0;
    const waiting = new Map<string, number>();
    const watch = (async () => {
      while (latencies.length < LIVE_SAMPLES) {
        const calls = r.fake.calls('chat.postMessage');
        for (; scanned < calls.length; scanned++) {
          const c = calls[scanned]!;
          if (c.status !== 200) {
            if (c.status === undefined) break; // still in flight: look again
            continue;
          }
          const shown = JSON.stringify(c.args.blocks ?? c.args.text);
          for (const [h, t] of waiting) {
            if (!shown.includes(h)) continue;
            latencies.push(c.at - t);
            waiting.delete(h);
          }
        }
        await sleep(10);
      }
    })();
    for (let i = 0; i < LIVE_SAMPLES; i++) {
      const h = hashOf(0xabc, i);
      listed.set(h, `${(i % 500) + 1}.25`);
      await postJson(r.url, body(h, i, 2));
      waiting.set(h, Date.now());
      await sleep(LIVE_GAP_MS);
    }
    await Promise.race([watch, sleep(60_000)]);
    const c = `${LIVE_SAMPLES} live deposits, ${BACKLOG} ${backlog} waiting`;
    const missed = LIVE_SAMPLES - latencies.length;
    return [
      result({
        bench: 'alerts',
        case: c,
        metric: 'ack→first alert p50',
        value: percentile(latencies, 50),
        unit: 'ms',
        baseline: LIVE_LIMIT_MS,
        better: 'lower',
      }),
      result({
        bench: 'alerts',
        case: c,
        metric: 'ack→first alert p99',
        value: percentile(latencies, 99),
        unit: 'ms',
        baseline: LIVE_LIMIT_MS,
        better: 'lower',
      }),
      ...(missed
        ? [
            result({
              bench: 'alerts',
              case: c,
              metric: 'not shown within 60 s',
              value: missed,
              unit: 'deposits',
              better: 'lower',
            }),
          ]
        : []),
    ];
  } finally {
    await r.close();
  }
}

const bench: Bench = {
  name: 'alerts',
  description: `alerts at 1/5/20 deposits per second for ${SECONDS} s and live latency under a ${BACKLOG}-alert backlog, against Slack's rate limits; 20 deposits/s verified against the transaction list (batched sweep vs per-hash)`,
  async run() {
    const out: BenchResult[] = [];
    for (const [k, rate] of RATES.entries()) out.push(...(await volume(rate, k + 1)));
    out.push(...(await liveUnderBacklog('reconciliation findings')));
    out.push(...(await liveUnderBacklog('live deposits')));
    if (!process.env.ALERTS_BENCH_SKIP_VERIFY) out.push(...(await verificationAtVolume()));
    return out;
  },
};

export default bench;
