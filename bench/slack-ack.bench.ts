/**
 * Acknowledgement latency: from sending a signed `/address`, `/tx` or `/withdraw` request, or a click on
 * Approve that asks for a passkey (issue 37: its confirmation is started after the ack), to
 * the whole app (HTTP mode) until Bolt's HTTP 200 arrives, in bursts of N concurrent requests,
 * beside a bare Bolt app whose `/noop` only acks, at the same concurrency with its bursts
 * interleaved with ours. Each figure is measured in five rounds (BENCH_ROUNDS), each with its
 * own baseline, and reported as the median of the rounds' ratios and the worst.
 *
 * Slack gives an app 3 s to ack; the ack must not wait for the wallet call. The slow part (wallet call, QR code, uploads, the response_url post) still runs in
 * this process after the ack and competes with later acks of the same burst, as it would in
 * production; between bursts, untimed, every reply (and every /address QR upload) is awaited so
 * one burst's tail never lands in the next.
 *
 * The wallet service (sandbox) and Slack's Web API (fake) are remote in production, so by
 * default they run in a child process (bench/world.ts): their CPU work is not counted against
 * our acks. Both apps talk to the same world and share this process with the load generator.
 * `ACK_WORLD=inline npm run bench slack-ack` runs them in this process instead, as the bench
 * did before, to see how much of the ratio was the world's work.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startBareBoltApp, type BareBolt } from '../test/helpers/bare-bolt.js';
import { blockAction, sendToBolt, slashCommand, type SlackRequestBody } from '../test/helpers/slack-requests.js';
import { CHANNELS, FINANCE_GROUP, startTestApp, TEST_POLICY_YAML, USERS } from '../test/helpers/treasury-app.js';
import type { Deps } from '../src/deps.js';
import { CREDENTIALS } from '../src/passkeys/index.js';
import { parsePolicy } from '../src/policy/load.js';

/** A function run once, its promise shared. */
const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
};
import { nowMs, percentile, ROUNDS, roundsResult, type Bench, type BenchResult } from './lib.js';
import { startWorld } from './world-client.js';
import { startWorldApp } from './world-app.js';

/** `ACK_CONCURRENCY=100` (comma-separated) measures only those levels; `ACK_CASES=/tx` only those commands. */
const CONCURRENCY = (process.env.ACK_CONCURRENCY ?? '20,50,100').split(',').map(Number);
/**
 * Samples per case and round: a p99 that is not just the single worst request (the second
 * worst of 200), in five rounds that fit a few minutes.
 */
const SAMPLES_PER_CASE = 200;
const MIN_BURSTS = 2;
const REPLY_TIMEOUT_MS = 60_000;

interface CommandCase {
  /** A slash command, or `Approve` (a click on a card's Approve button that asks for a passkey). */
  command: '/address' | '/tx' | '/withdraw' | 'Approve';
  /** Who sends it (default: a viewer). */
  user?: string;
  text(i: number): string;
  /** What a successful reply starts with: a failure reply would make the bench measure the error path. */
  reply: RegExp;
  /**
   * Each success reply is followed by a file upload (the /address QR code to the DM): a burst's
   * tail is over only once those are done too, or they land in the next burst's timing.
   */
  uploads: boolean;
}

const CASES: CommandCase[] = [
  // Distinct clients, so the sandbox generates addresses rather than only looking them up.
  {
    command: '/address',
    text: (i) => `bench${i % 200}@client.example USDT BSC`,
    reply: /^Deposit address for /,
    uploads: true,
  },
  { command: '/tx', text: () => 'size=10', reply: /^Transactions: page 1 of /, uploads: false },
  // A whole request, each with its own amount (no retyped repeat), all within the daily limit.
  {
    command: '/withdraw',
    user: USERS.alice,
    text: (i) => `${(1 + (i % 3000) / 1000).toFixed(3)} USDT BSC ${DEST} bench-withdraw@client.example bench ${i}`,
    reply: /^⏳ Requested · /,
    uploads: false,
  },
  // Approve above passkey_above: after the ack, a confirmation is started (one store commit) and
  // the private "Confirm with your passkey" answer posted. Clicks go to one request by one approver.
  { command: 'Approve', user: USERS.carol, text: () => '', reply: /^Approving \*/, uploads: false },
];

const DEST = '0x1111111111111111111111111111111111111111';
/** The tests' policy, asking for a passkey above 500 USDT (the Approve case's request is 2,000). */
const BENCH_POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  passkey_above: { USDT: 500 }\n',
  ),
);

/**
 * Untimed set-up of the Approve case: one request at the passkey tier, and a passkey of Carol's
 * past its waiting time (written to the store as enrolment would; the clicks never reach the page).
 */
async function passkeyRequest(deps: Deps): Promise<string> {
  await deps.store.commit((tx) =>
    tx.put(CREDENTIALS, 'bench-credential', {
      id: 'bench-credential',
      user: USERS.carol,
      name: 'Bench',
      publicKey: 'AA',
      counter: 0,
      createdAt: '2020-01-01T00:00:00.000Z',
    }),
  );
  const made = await deps.withdrawals.request(
    {
      amount: '2000',
      currency: 'USDT',
      network: 'BSC',
      destination: DEST,
      clientEmail: 'bench-withdraw@client.example',
      note: 'bench approve',
      requestedFrom: 'command',
    },
    USERS.alice,
  );
  if (!made.ok) throw new Error(`the Approve case's request was refused: ${made.message}`);
  return made.request.id;
}

/** Our app, the bare one and the world they both talk to, however it is hosted. */
interface Setup {
  where: string;
  ourUrl: string;
  bareUrl: string;
  signingSecret: string;
  /** Untimed: fresh response_urls, one per request of a burst. */
  responseUrls(n: number): Promise<string[]>;
  /** Untimed, once: the request the Approve case clicks on (passkeyRequest). */
  approveTarget(): Promise<string>;
  /** Untimed: waits for every reply of a burst (and its upload, if any) and checks they are the success reply. */
  awaitReplies(urls: string[], c: CommandCase): Promise<void>;
  stop(): Promise<void>;
}

interface Burst {
  latencies: number[];
  /** First send to last ack. */
  ms: number;
  /** The longest the event loop was blocked during the burst: what the acks waited behind. */
  maxLoopDelayMs: number;
}

async function burst(n: number, send: (i: number) => Promise<void>): Promise<Burst> {
  const latencies: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const start = nowMs();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const t = nowMs();
      await send(i);
      latencies.push(nowMs() - t);
    }),
  );
  const ms = nowMs() - start;
  loop.disable();
  return { latencies, ms, maxLoopDelayMs: loop.max / 1e6 };
}

async function acked(res: Promise<{ status: number; body: string }>): Promise<void> {
  const r = await res;
  if (r.status !== 200) throw new Error(`Bolt answered ${r.status}: ${r.body.slice(0, 200)}`);
}

async function ourBurst(
  s: Setup,
  c: CommandCase,
  n: number,
  seq: { next: number },
): Promise<Burst & { urls: string[] }> {
  const urls = await s.responseUrls(n);
  const target = c.command === 'Approve' ? await s.approveTarget() : '';
  // Bodies are built and signed per request inside the timed send, as for the bare app.
  const r = await burst(n, async (k) => {
    const i = seq.next++;
    const body = requestBody(c, i, urls[k]!, c.command === 'Approve' ? 'wd_approve' : c.command, target);
    await acked(sendToBolt(s.ourUrl, s.signingSecret, body));
  });
  return { ...r, urls };
}

async function bareBurst(s: Setup, c: CommandCase, n: number): Promise<Burst> {
  const urls = await s.responseUrls(n);
  return burst(n, async (i) => {
    const body = requestBody(c, i, urls[i]!, c.command === 'Approve' ? 'noop' : '/noop', 'noop');
    await acked(sendToBolt(s.bareUrl, s.signingSecret, body));
  });
}

/** The signed body of one request of a case: a slash command, or a button click (same shape for the bare app's `noop`). */
function requestBody(c: CommandCase, i: number, responseUrl: string, name: string, value: string): SlackRequestBody {
  const userId = c.user ?? USERS.viewer;
  if (c.command === 'Approve')
    return blockAction({
      userId,
      channelId: CHANNELS.approvals,
      message: { ts: '1700000000.000100' },
      action: { actionId: name, value },
      responseUrl,
    });
  return slashCommand({ command: name, text: c.text(i), userId, channelId: CHANNELS.command, responseUrl });
}

/**
 * One case at one concurrency, in ROUNDS rounds (bench/lib.ts): each round is `bursts` bursts of
 * ours alternating with the bare app's, enough samples for a p99 of its own; each figure is
 * reported as the median of the rounds' and the worst round's ratio.
 */
async function measure(s: Setup, c: CommandCase, n: number, seq: { next: number }): Promise<BenchResult[]> {
  const bursts = Math.max(MIN_BURSTS, Math.ceil(SAMPLES_PER_CASE / n));
  const lat = (rs: Burst[]) => rs.flatMap((x) => x.latencies);
  const rps = (rs: Burst[]) =>
    (rs.reduce((sum, x) => sum + x.latencies.length, 0) / rs.reduce((sum, x) => sum + x.ms, 0)) * 1000;
  const stall = (rs: Burst[]) => Math.max(...rs.map((x) => x.maxLoopDelayMs));
  const figures = { p50: [], p99: [], rps: [], stall: [] } as Record<
    'p50' | 'p99' | 'rps' | 'stall',
    Array<{ value: number; baseline: number }>
  >;
  for (let r = 0; r < ROUNDS; r++) {
    const ours: Burst[] = [];
    const base: Burst[] = [];
    for (let b = 0; b < bursts; b++) {
      // Alternating keeps slow drift (GC, page cache, thermal, other load) out of the ratio.
      const o = await ourBurst(s, c, n, seq);
      await s.awaitReplies(o.urls, c);
      ours.push(o);
      base.push(await bareBurst(s, c, n));
    }
    figures.p50.push({ value: percentile(lat(ours), 50), baseline: percentile(lat(base), 50) });
    figures.p99.push({ value: percentile(lat(ours), 99), baseline: percentile(lat(base), 99) });
    figures.rps.push({ value: rps(ours), baseline: rps(base) });
    figures.stall.push({ value: stall(ours), baseline: stall(base) });
  }
  const cs = `${c.command}, ${n} concurrent × ${bursts} bursts a round, ${s.where}`;
  const bench = 'slack-ack';
  return [
    roundsResult({
      bench,
      case: cs,
      metric: 'ack p50 (bare Bolt /noop)',
      unit: 'ms',
      rounds: figures.p50,
      better: 'lower',
    }),
    roundsResult({
      bench,
      case: cs,
      metric: 'ack p99 (bare Bolt /noop)',
      unit: 'ms',
      rounds: figures.p99,
      better: 'lower',
    }),
    roundsResult({
      bench,
      case: cs,
      metric: 'acks/s within a burst (bare Bolt /noop)',
      unit: 'req/s',
      rounds: figures.rps,
      better: 'higher',
    }),
    roundsResult({
      bench,
      case: cs,
      metric: 'longest event-loop stall in a round (bare Bolt /noop)',
      unit: 'ms',
      rounds: figures.stall,
      better: 'lower',
    }),
  ];
}

const responseUrlOpts = { channel: CHANNELS.command, user: USERS.viewer };

/** Sandbox and fake Slack in a child process, as remote as they are in production. */
async function childWorld(): Promise<Setup> {
  const world = await startWorld({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
  let ours: Awaited<ReturnType<typeof startWorldApp>> | undefined;
  let bare: BareBolt | undefined;
  let uploads = 0;
  try {
    // Pacing off: nothing here goes through the outbox, and it must not slow the drain.
    ours = await startWorldApp(world, { outbox: { paceMs: 0 }, policy: BENCH_POLICY });
    bare = await startBareBoltApp({ fakeSlackUrl: world.info.fakeSlackUrl, signingSecret: ours.signingSecret });
  } catch (err) {
    await ours?.stop();
    await world.close();
    throw err;
  }
  return {
    where: 'sandbox + fake Slack in a child process',
    ourUrl: ours.app.url,
    bareUrl: bare.url,
    signingSecret: ours.signingSecret,
    responseUrls: (n) => world.responseUrls(n, responseUrlOpts),
    approveTarget: once(() => passkeyRequest(ours.app.deps)),
    awaitReplies: async (urls, c) => {
      await world.awaitReplies(urls, c.reply.source, REPLY_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${c.command}: ${err.message}`);
      });
      if (!c.uploads) return;
      uploads += urls.length;
      await world.awaitFiles(uploads, REPLY_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${c.command}: ${err.message}`);
      });
    },
    async stop() {
      await bare!.stop();
      await ours!.stop();
      await world.close();
    },
  };
}

/** Sandbox and fake Slack in this process (the bench's first form): their work counts against the acks. */
async function inlineWorld(): Promise<Setup> {
  const t = await startTestApp({ outbox: { paceMs: 0 }, policy: BENCH_POLICY });
  let bare: BareBolt;
  let uploads = 0;
  try {
    bare = await startBareBoltApp({ fakeSlackUrl: t.fake.url, signingSecret: t.signingSecret });
  } catch (err) {
    await t.stop();
    throw err;
  }
  return {
    where: 'sandbox + fake Slack in this process',
    ourUrl: t.app.url,
    bareUrl: bare.url,
    signingSecret: t.signingSecret,
    responseUrls: async (n) => Array.from({ length: n }, () => t.fake.responseUrl(responseUrlOpts)),
    approveTarget: once(() => passkeyRequest(t.app.deps)),
    async awaitReplies(urls, c) {
      const wanted = new Set(urls);
      const deadline = Date.now() + REPLY_TIMEOUT_MS;
      for (;;) {
        const got = t.fake.responses.filter((r) => wanted.has(r.url) && r.status !== 0);
        if (got.length >= urls.length) {
          const bad = got.find((r) => r.status !== 200 || !c.reply.test(String(r.body.text ?? '')));
          if (bad) throw new Error(`${c.command} replied ${bad.status} ${JSON.stringify(bad.body).slice(0, 300)}`);
          if (!c.uploads || t.fake.files().length >= uploads + urls.length) {
            if (c.uploads) uploads += urls.length;
            return;
          }
        }
        if (Date.now() > deadline)
          throw new Error(`${c.command}: ${got.length} of ${urls.length} replies after ${REPLY_TIMEOUT_MS} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async stop() {
      await bare.stop();
      await t.stop();
    },
  };
}

const bench: Bench = {
  name: 'slack-ack',
  description: `/address, /tx, /withdraw and Approve (passkey) ack latency at ${CONCURRENCY.join(' / ')} concurrent vs a bare Bolt /noop`,
  async run() {
    const s = process.env.ACK_WORLD === 'inline' ? await inlineWorld() : await childWorld();
    try {
      const seq = { next: 0 };
      // Warm-up, not recorded: wallet login, Bolt's first auth.test, JIT, connection pools.
      for (const c of CASES) {
        const o = await ourBurst(s, c, CONCURRENCY[0]!, seq);
        await s.awaitReplies(o.urls, c);
        await bareBurst(s, c, CONCURRENCY[0]!);
      }
      const out: BenchResult[] = [];
      const only = process.env.ACK_CASES?.split(',');
      for (const c of CASES) {
        if (only && !only.includes(c.command)) continue;
        for (const n of CONCURRENCY) out.push(...(await measure(s, c, n, seq)));
      }
      return out;
    } finally {
      await s.stop();
    }
  },
};

export default bench;
