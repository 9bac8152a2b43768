/**
 * Webhook ingestion: requests/second and p50/p99 latency of POST /webhooks/wallet/:secret
 * (parse, dedupe, durable commit with its outbox entry, 200) with 1k, 10k and 100k events
 * already retained, beside the floor: a bare Node HTTP server that appends each body to a
 * file and fdatasyncs it, under the same load in the same run. Then webhook-to-Slack-post
 * latency through the outbox, with a fake Slack that does not rate limit.
 */
import fs from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { createAlerts, ingestEvent, readWebhook } from '../src/alerts/index.js';
import { startHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/log.js';
import { createOutbox } from '../src/outbox/index.js';
import { registerAlertRenderers } from '../src/slack/alert-messages.js';
import { parsePolicy } from '../src/policy/load.js';
import { openStore } from '../src/store/index.js';
import { parseJson } from '../src/wallet/json.js';
import { startFakeSlack } from '../test/helpers/fake-slack.js';
import {
  makeTempDir,
  nowMs,
  percentile,
  removeDir,
  result,
  runConcurrent,
  type Bench,
  type BenchResult,
} from './lib.js';
import { fixedPolicy } from '../src/policy/source.js';

const SIZES = [1_000, 10_000, 100_000];
const REQUESTS = 2_000;
const IN_FLIGHT = 32;
const PREFILL_BATCH = 1_000;
const E2E_EVENTS = 200;
const SECRET = 'bench_secret_0123456789abcdefghij';
const logger = createLogger({ level: 'silent' });
const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { approvers: [U0CAROL] }
withdrawals: { tiers: { default: [ { approvals: 1 } ] } }
`);

function body(i: number, status = 3): string {
  const hash = `0x${i.toString(16).padStart(64, '0')}`;
  return (
    `{"TransactionType":1,"Data":{"Checksum":"${'AB'.repeat(64)}","Amount":${(i % 5000) + 1}.25,"Charge":0.5,"TotalAmountDeposited":${(i % 5000) + 1}.75,` +
    `"DepositAddress":"0x1111111111111111111111111111111111111111","ReceiveAddress":"0x2222222222222222222222222222222222222222",` +
    `"Currency":4,"NetworkChain":"BSC","Status":${status},"MerchantClient":{"Email":"client${i % 100}@example.com"},"TransactionHash":"${hash}"}}`
  );
}

const agentless = (url: string, text: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }).then(async (r) => {
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`status ${r.status}`);
  });

async function bareServer(file: string): Promise<{ url: string; close(): Promise<void> }> {
  const fh = await fs.open(file, 'a');
  let chain: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const line = Buffer.concat([...chunks, Buffer.from('\n')]);
      // One append + fdatasync per body, in arrival order: the simplest durable receiver.
      chain = chain.then(async () => {
        await fh.write(line);
        await fh.datasync();
      });
      void chain.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await fh.close();
    },
  };
}

async function ingestion(n: number): Promise<BenchResult[]> {
  const dir = await makeTempDir('bench-webhooks');
  try {
    const store = await openStore({ dir, logger });
    const client = new WebClient('xoxb-bench', { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } });
    const outbox = createOutbox({ store, client, logger }); // not started: ingestion only
    const alerts = createAlerts({
      store,
      outbox,
      wallet: { listTransactions: () => Promise.reject(new Error('no wallet service in this benchmark')) },
      policy: fixedPolicy(policy),
      logger,
      secret: SECRET,
    });
    for (let start = 0; start < n; start += PREFILL_BATCH) {
      await store.commit((tx) => {
        for (let i = start; i < Math.min(n, start + PREFILL_BATCH); i++) {
          const raw = body(i);
          ingestEvent(
            tx,
            { event: readWebhook(parseJson(raw)), source: 'webhook', raw },
            { outbox, policy, now: Date.now() },
          );
        }
      });
    }
    const http = await startHttpServer(
      [{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }],
      { port: 0, host: '127.0.0.1', logger },
    );
    const url = `${http.url}/webhooks/wallet/${SECRET}`;
    const ours = await runConcurrent(REQUESTS, IN_FLIGHT, (i) => agentless(url, body(n + i)));
    await http.close();
    await alerts.stop();
    await store.close();

    const bare = await bareServer(path.join(dir, 'bare.jsonl'));
    const floor = await runConcurrent(REQUESTS, IN_FLIGHT, (i) => agentless(bare.url, body(n + i)));
    await bare.close();

    const c = `${n / 1000}k retained, ${IN_FLIGHT} in flight`;
    return [
      result({
        bench: 'webhooks',
        case: c,
        metric: 'ingest rps',
        value: (REQUESTS / ours.ms) * 1000,
        unit: 'req/s',
        baseline: (REQUESTS / floor.ms) * 1000,
        better: 'higher',
      }),
      result({
        bench: 'webhooks',
        case: c,
        metric: 'ingest p50',
        value: percentile(ours.latencies, 50),
        unit: 'ms',
        baseline: percentile(floor.latencies, 50),
        better: 'lower',
      }),
      result({
        bench: 'webhooks',
        case: c,
        metric: 'ingest p99',
        value: percentile(ours.latencies, 99),
        unit: 'ms',
        baseline: percentile(floor.latencies, 99),
        better: 'lower',
      }),
    ];
  } finally {
    await removeDir(dir);
  }
}

async function webhookToSlack(): Promise<BenchResult[]> {
  const dir = await makeTempDir('bench-webhooks-e2e');
  const fake = await startFakeSlack();
  try {
    const store = await openStore({ dir, logger });
    const client = new WebClient('xoxb-bench', {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    // Pacing off: this measures our pipeline, not Slack's one-per-second etiquette.
    const outbox = createOutbox({ store, client, logger, paceMs: 0, burstThreshold: 1_000_000 });
    registerAlertRenderers(outbox, store);
    const alerts = createAlerts({
      store,
      outbox,
      wallet: { listTransactions: () => Promise.reject(new Error('no wallet service in this benchmark')) },
      policy: fixedPolicy(policy),
      logger,
      secret: SECRET,
    });
    outbox.start();
    const http = await startHttpServer(
      [{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }],
      { port: 0, host: '127.0.0.1', logger },
    );
    const url = `${http.url}/webhooks/wallet/${SECRET}`;
    const latencies: number[] = [];
    for (let i = 0; i < E2E_EVENTS; i++) {
      const before = fake.calls('chat.postMessage').length;
      const t = nowMs();
      await agentless(url, body(i));
      while (fake.calls('chat.postMessage').filter((c) => c.status !== undefined).length <= before)
        await new Promise((r) => setImmediate(r));
      latencies.push(nowMs() - t);
    }
    await http.close();
    await outbox.stop();
    await alerts.stop();
    await store.close();
    const c = `${E2E_EVENTS} events one at a time, fake Slack`;
    return [
      result({
        bench: 'webhooks',
        case: c,
        metric: 'webhook→post p50',
        value: percentile(latencies, 50),
        unit: 'ms',
        better: 'lower',
      }),
      result({
        bench: 'webhooks',
        case: c,
        metric: 'webhook→post p99',
        value: percentile(latencies, 99),
        unit: 'ms',
        better: 'lower',
      }),
    ];
  } finally {
    await fake.close();
    await removeDir(dir);
  }
}

const bench: Bench = {
  name: 'webhooks',
  description: 'webhook ingestion vs append+fsync, and webhook-to-Slack latency through the outbox',
  async run() {
    const out: BenchResult[] = [];
    for (const n of SIZES) out.push(...(await ingestion(n)));
    out.push(...(await webhookToSlack()));
    return out;
  },
};

export default bench;
