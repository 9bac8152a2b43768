/** A whole alerts pipeline on loopback: store in a temp dir, sandbox wallet, fake Slack, our HTTP server. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { createAlerts, type Alerts, type AlertsDeps } from '../../src/alerts/index.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log.js';
import { createOutbox, type Outbox, type OutboxOptions } from '../../src/outbox/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { registerAlertRenderers } from '../../src/slack/alert-messages.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createWalletClient, type WalletClient } from '../../src/wallet/client.js';
import type { ExplorerNet } from '../../src/wallet/explorers.js';
import { startFakeSlack, type ApiGate, type FakeSlack } from '../helpers/fake-slack.js';
import { fixedPolicy } from '../../src/policy/source.js';

export const SECRET = 'whk_test_secret_0123456789abcdef';
export const POLICY_YAML = `
channels:
  approvals: C0APPROVALS
  alerts: C0ALERTS
  routes:
    - { kind: deposit, currency: USDT, channel: C0USDT }
    - { kind: withdrawal, channel: C0WITHDRAW }
people:
  approvers: [U0CAROL]
withdrawals:
  tiers:
    default:
      - { approvals: 1 }
alerts:
  mention_above: { USDT: 10000, BTC: "0.5" }
`;

/** The test policy with an admin to tell, and the shortest grace (30 s) before a claim the history does not back is flagged. */
export const TRUST_POLICY = parsePolicy(
  POLICY_YAML.replace('people:\n', 'people:\n  admins: [U0ERIN]\n').replace(
    'alerts:\n',
    'alerts:\n  verify_grace: 30s\n',
  ),
);

/** A 0x-prefixed 64-hex transaction hash made from a number. */
export const hashOf = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

export const logger = createLogger({ level: 'silent' });

export interface Pipeline {
  dir: string;
  store: Store;
  fake: FakeSlack;
  outbox: Outbox;
  sandbox: Sandbox;
  wallet: WalletClient;
  alerts: Alerts;
  http: HttpServer;
  webhookUrl: string;
  close(): Promise<void>;
}

export interface PipelineOptions {
  alerts?: Partial<AlertsDeps>;
  /** Which block explorers the Slack messages link to. */
  explorer?: ExplorerNet;
  sandbox?: SandboxOptions;
  dir?: string;
  startOutbox?: boolean;
  /** Outbox tuning (pacing) on top of the fast test defaults. */
  outbox?: Partial<Omit<OutboxOptions, 'store' | 'client' | 'logger'>>;
  /** The fake Slack's gate: rate limits (test/helpers/slack-rate-limits.ts). */
  gate?: ApiGate;
}

export async function startPipeline(o: PipelineOptions = {}): Promise<Pipeline> {
  const dir = o.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'alerts-')));
  const store = await openStore({ dir, logger });
  const fake = await startFakeSlack(o.gate ? { gate: o.gate } : {});
  const client = new WebClient('xoxb-alerts-test', {
    slackApiUrl: fake.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 2000,
  });
  const outbox = createOutbox({
    store,
    client,
    logger,
    paceMs: 2,
    baseBackoffMs: 10,
    maxBackoffMs: 50,
    unknownOutcomeDelayMs: 50,
    ...o.outbox,
  });
  const policy = o.alerts?.policy ?? fixedPolicy(parsePolicy(POLICY_YAML));
  registerAlertRenderers(outbox, store, { ...(o.explorer ? { explorer: o.explorer } : {}), policy });
  const sandbox = await createSandbox({
    seed: false,
    webhook: { retryBaseMs: 20, maxDelayMs: 100, confirmAfterMs: 50, maxAttempts: 3 },
    ...o.sandbox,
  });
  const wallet = createWalletClient({ baseUrl: sandbox.url, ...SANDBOX_MERCHANT, logger });
  const alerts = createAlerts({
    store,
    outbox,
    wallet,
    policy,
    logger,
    secret: SECRET,
    verifyRetryDelaysMs: [20, 50],
    // The deposits' sweep at a test's pace; floods only where a test asks for them.
    sweep: { intervalMs: 20, idleIntervalMs: 100, listLagMs: 30, hashLookupAfterMs: 100, floodThreshold: 1e9 },
    ...o.alerts,
  });
  const http = await startHttpServer([{ method: 'POST', path: '/webhooks/wallet/:secret', handler: alerts.handler }], {
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  if (o.startOutbox !== false) outbox.start();
  const webhookUrl = `${http.url}/webhooks/wallet/${SECRET}`;
  return {
    dir,
    store,
    fake,
    outbox,
    sandbox,
    wallet,
    alerts,
    http,
    webhookUrl,
    async close() {
      await http.close();
      await alerts.stop();
      await outbox.stop();
      await sandbox.close();
      await store.close().catch(() => undefined);
      await fake.close();
    },
  };
}

export async function send(
  url: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

/**
 * Puts deposits in the sandbox's transaction list (its history), stamped now: what the sweep
 * then finds. Replaces what the list held.
 */
export function listDeposits(
  p: Pick<Pipeline, 'sandbox'>,
  records: Array<{ hash: string; amount?: string; currency?: string; network?: string }>,
): void {
  const now = Date.now();
  p.sandbox.resetTransactions(
    records.map((r) => ({
      transactionHash: r.hash,
      amount: r.amount ?? '150.25',
      currency: r.currency ?? 'USDT',
      network: r.network ?? 'BSC',
      transactionTimeStamp: now,
    })),
  );
}

export const HASH_A = `0x${'a'.repeat(64)}`;
export const HASH_B = `0x${'b'.repeat(64)}`;

/** The public docs' deposit sample, PascalCase, Currency as a number and NetworkChain as a name. */
export function depositSample(
  o: {
    hash?: string;
    status?: number | string;
    amount?: string | number;
    currency?: number | string;
    extra?: Record<string, unknown>;
  } = {},
): string {
  const amount = o.amount ?? '150.25';
  const amountJson = typeof amount === 'number' ? String(amount) : amount.startsWith('"') ? amount : amount;
  return (
    `{"TransactionType":1,"Data":{"Checksum":"${'AB'.repeat(64)}","Amount":${amountJson},"Charge":0.5,"TotalAmountDeposited":150.75,` +
    `"DepositAddress":"0x1111111111111111111111111111111111111111","ReceiveAddress":"0x2222222222222222222222222222222222222222",` +
    `"Currency":${JSON.stringify(o.currency ?? 4)},"NetworkChain":"BSC","Status":${JSON.stringify(o.status ?? 2)},"MerchantClient":{"Email":"client@example.com"},` +
    `"TransactionHash":"${o.hash ?? HASH_A}"${o.extra ? `,${JSON.stringify(o.extra).slice(1, -1)}` : ''}}}`
  );
}
