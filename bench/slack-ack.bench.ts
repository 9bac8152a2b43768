/**
 * Slash-command acknowledgement latency: from sending a signed `/address` or `/tx` request to
 * the whole app (HTTP mode, fake Slack, embedded sandbox) until Bolt's HTTP 200 arrives, in
 * rounds of N concurrent requests, beside a bare Bolt app whose `/noop` only acks, at the same
 * concurrency with its rounds interleaved with ours. Slack gives an app 3 s to ack; the ack
 * must not wait for the wallet call. The slow part (wallet call, QR code, uploads, the
 * response_url post) still runs in this process after the ack and competes with later acks of
 * the same round, as it would in production; between rounds, untimed, every reply is awaited
 * so one round's tail never lands in the next.
 */
import { startBareBoltApp, type BareBolt } from '../test/helpers/bare-bolt.js';
import { sendToBolt, slashCommand, type SlackRequestBody } from '../test/helpers/slack-requests.js';
import { CHANNELS, startTestApp, USERS, type TestApp } from '../test/helpers/treasury-app.js';
import { nowMs, percentile, result, type Bench, type BenchResult } from './lib.js';

const CONCURRENCY = [20, 50, 100];
/** Enough samples per case for a p99 that is not just the single worst request. */
const SAMPLES_PER_CASE = 300;
const MIN_ROUNDS = 4;
const REPLY_TIMEOUT_MS = 60_000;

interface CommandCase {
  command: '/address' | '/tx';
  text(i: number): string;
  /** What a successful reply starts with: a failure reply would make the bench measure the error path. */
  reply: RegExp;
}

const CASES: CommandCase[] = [
  // Distinct clients, so the sandbox generates addresses rather than only looking them up.
  { command: '/address', text: (i) => `bench${i % 200}@client.example USDT BSC`, reply: /^Deposit address for / },
  { command: '/tx', text: () => 'size=10', reply: /^Transactions: page 1 of / },
];

interface Round {
  latencies: number[];
  /** First send to last ack. */
  ms: number;
}

async function round(n: number, send: (i: number) => Promise<void>): Promise<Round> {
  const latencies: number[] = [];
  const start = nowMs();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const t = nowMs();
      await send(i);
      latencies.push(nowMs() - t);
    }),
  );
  return { latencies, ms: nowMs() - start };
}

async function acked(res: Promise<{ status: number; body: string }>): Promise<void> {
  const r = await res;
  if (r.status !== 200) throw new Error(`Bolt answered ${r.status}: ${r.body.slice(0, 200)}`);
}

/** Untimed: waits for every reply of a round and checks they are the success reply. */
async function awaitReplies(t: TestApp, urls: readonly string[], c: CommandCase): Promise<void> {
  const wanted = new Set(urls);
  const deadline = Date.now() + REPLY_TIMEOUT_MS;
  for (;;) {
    const got = t.fake.responses.filter((r) => wanted.has(r.url) && r.status !== 0);
    if (got.length >= urls.length) {
      const bad = got.find((r) => r.status !== 200 || !c.reply.test(String(r.body.text ?? '')));
      if (bad) throw new Error(`${c.command} replied ${bad.status} ${JSON.stringify(bad.body).slice(0, 300)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${c.command}: ${got.length} of ${urls.length} replies after ${REPLY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function ourRound(t: TestApp, c: CommandCase, n: number, seq: { next: number }): Promise<Round & { urls: string[] }> {
  // Bodies are built and signed per request inside the timed send, as for the bare app.
  const urls: string[] = [];
  return round(n, async () => {
    const i = seq.next++;
    const responseUrl = t.fake.responseUrl({ channel: CHANNELS.command, user: USERS.viewer });
    urls.push(responseUrl);
    const body = slashCommand({ command: c.command, text: c.text(i), userId: USERS.viewer, channelId: CHANNELS.command, responseUrl });
    await acked(sendToBolt(t.app.url, t.signingSecret, body));
  }).then((r) => ({ ...r, urls }));
}

function bareRound(t: TestApp, bare: BareBolt, c: CommandCase, n: number): Promise<Round> {
  return round(n, async (i) => {
    const responseUrl = t.fake.responseUrl({ channel: CHANNELS.command, user: USERS.viewer });
    const body: SlackRequestBody = slashCommand({ command: '/noop', text: c.text(i), userId: USERS.viewer, channelId: CHANNELS.command, responseUrl });
    await acked(sendToBolt(bare.url, t.signingSecret, body));
  });
}

async function measure(t: TestApp, bare: BareBolt, c: CommandCase, n: number, seq: { next: number }): Promise<BenchResult[]> {
  const rounds = Math.max(MIN_ROUNDS, Math.ceil(SAMPLES_PER_CASE / n));
  const ours: Round[] = [];
  const base: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternating keeps slow drift (GC, page cache, thermal) out of the ratio.
    const o = await ourRound(t, c, n, seq);
    await awaitReplies(t, o.urls, c);
    ours.push(o);
    base.push(await bareRound(t, bare, c, n));
  }
  const lat = (rs: Round[]) => rs.flatMap((x) => x.latencies);
  const rps = (rs: Round[]) => (rs.reduce((s, x) => s + x.latencies.length, 0) / rs.reduce((s, x) => s + x.ms, 0)) * 1000;
  const cs = `${c.command}, ${n} concurrent × ${rounds} rounds`;
  const bench = 'slack-ack';
  return [
    result({ bench, case: cs, metric: 'ack p50 (bare Bolt /noop)', value: percentile(lat(ours), 50), unit: 'ms', baseline: percentile(lat(base), 50), better: 'lower' }),
    result({ bench, case: cs, metric: 'ack p99 (bare Bolt /noop)', value: percentile(lat(ours), 99), unit: 'ms', baseline: percentile(lat(base), 99), better: 'lower' }),
    result({ bench, case: cs, metric: 'acks/s within a round (bare Bolt /noop)', value: rps(ours), unit: 'req/s', baseline: rps(base), better: 'higher' }),
  ];
}

const bench: Bench = {
  name: 'slack-ack',
  description: `/address and /tx ack latency at ${CONCURRENCY.join(' / ')} concurrent vs a bare Bolt /noop`,
  async run() {
    // Pacing off: nothing here goes through the outbox, and it must not slow the drain.
    const t = await startTestApp({ outbox: { paceMs: 0 } });
    let bare: BareBolt | undefined;
    try {
      bare = await startBareBoltApp({ fakeSlackUrl: t.fake.url, signingSecret: t.signingSecret });
      const seq = { next: 0 };
      // Warm-up, not recorded: wallet login, Bolt's first auth.test, JIT, connection pools.
      for (const c of CASES) {
        const o = await ourRound(t, c, CONCURRENCY[0]!, seq);
        await awaitReplies(t, o.urls, c);
        await bareRound(t, bare, c, CONCURRENCY[0]!);
      }
      const out: BenchResult[] = [];
      for (const c of CASES) for (const n of CONCURRENCY) out.push(...(await measure(t, bare, c, n, seq)));
      return out;
    } finally {
      await bare?.stop();
      await t.stop();
    }
  },
};

export default bench;
