/**
 * The whole app, started as `npm start` would start it, on test ports: HTTP mode against
 * the fake Slack Web API, the embedded sandbox as the wallet service, a temporary data
 * directory, a test policy and captured logs. Tests talk to it only through HTTP.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startApp, type RunningApp, type StartOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/schema.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from './fake-slack.js';
import {
  blockAction,
  sendToBolt,
  slashCommand,
  viewSubmission,
  type BoltResponse,
  type SendOptions,
  type ViewSubmissionOptions,
} from './slack-requests.js';

export const USERS = {
  viewer: 'U0VIEWER1',
  alice: 'U0ALICE01',
  bob: 'U0BOB0001',
  carol: 'U0CAROL01',
  dave: 'U0DAVE001',
  erin: 'U0ERIN001',
  outsider: 'U0OUTSIDE',
  groupMember: 'U0GROUPED',
} as const;
export const FINANCE_GROUP = 'S0FINANCE';

export const CHANNELS = {
  approvals: 'C0APPROVALS',
  alerts: 'C0ALERTS',
  usdt: 'C0USDTALRT',
  command: 'C0WORKROOM',
} as const;

export const TEST_POLICY_YAML = `
channels:
  approvals: ${CHANNELS.approvals}
  alerts: ${CHANNELS.alerts}
  routes:
    - { kind: deposit, currency: USDT, channel: ${CHANNELS.usdt} }
people:
  viewers: [${USERS.viewer}, ${FINANCE_GROUP}]
  requesters: [${USERS.alice}, ${USERS.bob}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}]
withdrawals:
  expires_after: 2h
  remind_before: 30m
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3, must_include: [${USERS.erin}] }
  daily_limit: { USDT: 50000 }
  allowlist:
    mode: warn
    addresses:
      - { address: "0x1111111111111111111111111111111111111111", network: BSC, label: "Exchange hot wallet" }
alerts:
  mention_above: { USDT: 10000 }
`;

export interface TestApp {
  app: RunningApp;
  fake: FakeSlack;
  signingSecret: string;
  botToken: string;
  config: Config;
  dataDir: string;
  /** Every log line written so far, raw. */
  logs(): string;
  /** A signed slash command as `user` in `channel`; resolves with Bolt's HTTP answer and the response_url to read replies from. */
  command(
    command: string,
    text: string,
    user?: string,
    opts?: { channel?: string; send?: SendOptions },
  ): Promise<{ res: BoltResponse; responseUrl: string }>;
  /** Click a button of a message (or of a response_url message). */
  click(
    user: string,
    action: { actionId: string; value: string; blockId?: string },
    opts?: {
      channel?: string;
      message?: { ts: string; text?: string; blocks?: unknown[]; thread_ts?: string };
      responseUrl?: string;
      send?: SendOptions;
    },
  ): Promise<{ res: BoltResponse; responseUrl: string }>;
  submitView(user: string, view: Omit<ViewSubmissionOptions, 'userId'>): Promise<BoltResponse>;
  /** Waits until the response_url has received at least n posts, then returns them. */
  replies(responseUrl: string, n?: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  /** Waits until some post to the response_url satisfies pred; returns every post so far. */
  repliesUntil(
    responseUrl: string,
    pred: (body: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  policy?: Policy;
  /**
   * A real policy file (governed policy), loaded as in production instead of `policy`; not
   * watched unless `watchPolicyFile`: tests call `checkPolicyFile()` when they changed it.
   */
  policyFile?: string;
  watchPolicyFile?: boolean;
  fake?: FakeSlack;
  fakeOptions?: FakeSlackOptions;
  dataDir?: string;
  /** Outbox tuning; tests default to fast pacing. */
  outbox?: StartOptions['outbox'];
  sandbox?: StartOptions['sandbox'];
  now?: () => number;
  /** Store tuning and write seam (disk-full tests). */
  store?: StartOptions['store'];
  noticeThrottle?: StartOptions['noticeThrottle'];
  /** The embedded store's ceiling in records (the size watch's tests lower it). */
  storeCeiling?: number;
}

export async function startTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const fake =
    o.fake ?? (await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] }, ...o.fakeOptions }));
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-test-${randomBytes(12).toString('hex')}`;
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'treasury-app-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_PORT: '0',
    // Off unless a test asks for a port: with PORT given, the default (9464) would be shared by
    // every app of the run, and a standby serves /metrics from its start.
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    DATA_DIR: dataDir,
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.url,
    ...(o.policyFile ? { POLICY_FILE: o.policyFile } : {}),
    ...o.env,
  });
  let captured = '';
  const destination = new Writable({
    write(chunk, _enc, cb) {
      captured += chunk.toString();
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const app = await startApp({
    config,
    logger,
    policy: o.policyFile ? undefined : (o.policy ?? parsePolicy(TEST_POLICY_YAML)),
    outbox: { paceMs: 20, baseBackoffMs: 50, maxBackoffMs: 500, ...o.outbox },
    sandbox: o.sandbox,
    now: o.now,
    store: o.store,
    ...(o.noticeThrottle ? { noticeThrottle: o.noticeThrottle } : {}),
    ...(o.storeCeiling ? { storeCeiling: o.storeCeiling } : {}),
    watchPolicyFile: o.watchPolicyFile ?? false,
  });

  const send = (body: Parameters<typeof sendToBolt>[2], opts?: SendOptions) =>
    sendToBolt(app.url, signingSecret, body, opts);

  return {
    app,
    fake,
    signingSecret,
    botToken,
    config,
    dataDir,
    logs: () => captured,
    async command(command, text, user = USERS.viewer, opts = {}) {
      const channel = opts.channel ?? CHANNELS.command;
      const responseUrl = fake.responseUrl({ channel, user });
      const res = await send(slashCommand({ command, text, userId: user, channelId: channel, responseUrl }), opts.send);
      return { res, responseUrl };
    },
    async click(user, action, opts = {}) {
      const channel = opts.channel ?? CHANNELS.command;
      const message = opts.message ?? { ts: '1700000000.000100' };
      const responseUrl = opts.responseUrl ?? fake.responseUrl({ channel, user, messageTs: opts.message?.ts });
      const res = await send(
        blockAction({
          userId: user,
          channelId: channel,
          message,
          responseUrl,
          actions: [{ actionId: action.actionId, value: action.value, blockId: action.blockId }],
        }),
        opts.send,
      );
      return { res, responseUrl };
    },
    submitView: (user, view) => send(viewSubmission({ ...view, userId: user })),
    async replies(responseUrl, n = 1, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = fake.responses.filter((r) => r.url === responseUrl).map((r) => r.body);
        if (got.length >= n) return got;
        if (Date.now() > deadline) {
          throw new Error(
            `expected ${n} response_url post(s), got ${got.length}: ${JSON.stringify(got).slice(0, 800)}`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async repliesUntil(responseUrl, pred, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = fake.responses.filter((r) => r.url === responseUrl).map((r) => r.body);
        if (got.some(pred)) return got;
        if (Date.now() > deadline)
          throw new Error(`no matching response_url post; got: ${JSON.stringify(got).slice(0, 800)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      await app.stop();
      if (!o.fake) await fake.close();
      if (!o.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on right now, for apps whose PUBLIC_URL must be known before they start. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** All text a message shows: its text and every text field of its blocks, flattened. */
export function visibleText(message: { text?: unknown; blocks?: unknown }): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') return;
    if (Array.isArray(v)) return v.forEach(walk);
    if (v && typeof v === 'object') {
      for (const [k, val] of Object.entries(v)) {
        if (k === 'text' && typeof val === 'string') out.push(val);
        else walk(val);
      }
    }
  };
  if (typeof message.text === 'string') out.push(message.text);
  walk(message.blocks);
  return out.join('\n');
}

/** A withdrawal form's values as Slack submits it untouched: each `wd_` field with the value it was opened with. */
export function formValuesAsOpened(blocks: unknown): Record<string, Record<string, unknown>> {
  type Block = {
    block_id?: string;
    element: { type: string; initial_value?: string; initial_option?: { value: string; text: unknown } };
  };
  const values: Record<string, Record<string, unknown>> = {};
  for (const b of (blocks ?? []) as Block[]) {
    if (!b.block_id?.startsWith('wd_')) continue;
    const e = b.element;
    values[b.block_id] = {
      value: e.initial_option
        ? { type: e.type, selected_option: e.initial_option }
        : { type: e.type, value: e.initial_value ?? null },
    };
  }
  return values;
}

/** The withdrawal form's values as Slack submits them (`wd_request_modal`); a null note is an empty field. */
export function withdrawFormValues(f: {
  amount: string;
  destination: string;
  client: string;
  currency?: string;
  network?: string;
  note?: string | null;
}) {
  const select = (value: string) => ({
    value: { type: 'static_select', selected_option: { value, text: { type: 'plain_text', text: value } } },
  });
  return {
    wd_amount: { value: { type: 'plain_text_input', value: f.amount } },
    wd_currency: select(f.currency ?? 'USDT'),
    wd_network: select(f.network ?? 'BSC'),
    wd_destination: { value: { type: 'plain_text_input', value: f.destination } },
    wd_client: { value: { type: 'email_text_input', value: f.client } },
    wd_note: { value: { type: 'plain_text_input', value: f.note ?? null } },
  };
}
