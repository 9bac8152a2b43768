/**
 * What screening costs a `/withdraw`: the same signed one-line requests, in bursts of N
 * concurrent, to two copies of the whole app in this process, one screening (the sanctions list
 * of the embedded sandbox, and its Chainalysis-compatible provider asked for every destination,
 * each one new so no answer is cached) and one with `screening.enabled: false` as the baseline,
 * their bursts alternating; then the same with the list alone (SANCTIONS_LIST_URL at the sandbox's
 * copy, no provider), to tell the provider's share from the rules'. Measured: the ack (Bolt's HTTP 200, which must not wait for
 * anything), and a burst's time until every reply is posted (the request decided, the
 * provider's call included). Each figure in ROUNDS rounds, reported as the median of the
 * rounds' ratios and the worst (bench/lib.ts). The bar: the ack within 1.05x.
 */
import { parsePolicy } from '../src/policy/load.js';
import { sendToBolt, slashCommand } from '../test/helpers/slack-requests.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../test/helpers/treasury-app.js';
import { nowMs, percentile, ROUNDS, roundsResult, type Bench, type BenchResult } from './lib.js';

const N = Number(process.env.SCREENING_CONCURRENCY ?? 20);
const BURSTS = 5;
const CLIENT = 'bench@client.example';
// Many requests: no daily limit in the way of the figures.
const yaml = TEST_POLICY_YAML.replace('daily_limit: { USDT: 50000 }', 'daily_limit: {}');

interface Burst {
  acks: number[];
  /** First send to the last reply posted. */
  decidedMs: number;
}

let seq = 0;
/** A fresh destination each time: the provider is asked for every one (nothing cached). */
const destination = () => `0x${(0xbe000000 + seq++).toString(16).padStart(40, '0')}`;

async function burst(a: TestApp): Promise<Burst> {
  const urls = Array.from({ length: N }, () => a.fake.responseUrl({ channel: CHANNELS.command, user: USERS.alice }));
  const acks: number[] = [];
  const start = nowMs();
  await Promise.all(
    urls.map(async (responseUrl) => {
      const body = slashCommand({
        command: '/withdraw',
        text: `10 USDT BSC ${destination()} ${CLIENT} bench`,
        userId: USERS.alice,
        channelId: CHANNELS.command,
        responseUrl,
      });
      const t = nowMs();
      const res = await sendToBolt(a.app.url, a.signingSecret, body);
      acks.push(nowMs() - t);
      if (res.status !== 200) throw new Error(`Bolt answered ${res.status}`);
    }),
  );
  const replies = await Promise.all(urls.map((u) => a.replies(u, 1, 60_000)));
  const decidedMs = nowMs() - start;
  for (const [r] of replies) {
    const text = String((r as { text?: unknown }).text ?? '');
    if (!text.startsWith('⏳ Requested')) throw new Error(`not the success reply: ${text.slice(0, 200)}`);
  }
  return { acks, decidedMs };
}

type Figures = Record<'p50' | 'p99' | 'decided', Array<{ value: number; baseline: number }>>;

/** ROUNDS rounds of BURSTS bursts each, `on` and `off` alternating. */
async function measure(on: TestApp, off: TestApp): Promise<Figures> {
  const figures: Figures = { p50: [], p99: [], decided: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const ours: Burst[] = [];
    const base: Burst[] = [];
    for (let b = 0; b < BURSTS; b++) {
      ours.push(await burst(on));
      base.push(await burst(off));
    }
    const acks = (bs: Burst[]) => bs.flatMap((x) => x.acks);
    figures.p50.push({ value: percentile(acks(ours), 50), baseline: percentile(acks(base), 50) });
    figures.p99.push({ value: percentile(acks(ours), 99), baseline: percentile(acks(base), 99) });
    const decided = (bs: Burst[]) =>
      percentile(
        bs.map((x) => x.decidedMs),
        50,
      );
    figures.decided.push({ value: decided(ours), baseline: decided(base) });
  }
  return figures;
}

function rows(cs: string, f: Figures): BenchResult[] {
  const common = { bench: 'screening', case: cs, unit: 'ms', better: 'lower' as const };
  return [
    roundsResult({ ...common, metric: 'ack p50 (screening off)', rounds: f.p50 }),
    roundsResult({ ...common, metric: 'ack p99 (screening off)', rounds: f.p99 }),
    roundsResult({ ...common, metric: 'burst until every reply, median (screening off)', rounds: f.decided }),
  ];
}

const bench: Bench = {
  name: 'screening',
  description: `/withdraw with screening on (list + provider) vs off, ${N} concurrent, bursts alternating`,
  async run(): Promise<BenchResult[]> {
    const on = await startTestApp({ policy: parsePolicy(yaml), env: { LOG_LEVEL: 'warn' } });
    const apps: TestApp[] = [on];
    const off = await startTestApp({
      policy: parsePolicy(`${yaml}\nscreening: { enabled: false }\n`),
      env: { LOG_LEVEL: 'warn' },
    });
    apps.push(off);
    try {
      for (const a of [on, off]) a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
      // Warm-up, untimed: JIT, connections, the first list and price reads.
      await burst(on);
      await burst(off);
      const answersBefore = on.app.sandbox!.screening.providerAnswers();
      const withProvider = await measure(on, off);
      // The provider was really asked for every destination of the timed bursts.
      const asked = on.app.sandbox!.screening.providerAnswers() - answersBefore;
      if (asked < ROUNDS * BURSTS * N) throw new Error(`the provider was asked ${asked} times only`);
      apps.splice(apps.indexOf(on), 1);
      await on.stop();
      // The list alone: SANCTIONS_LIST_URL set (the sandbox's copy), so no provider.
      const listOnly = await startTestApp({
        policy: parsePolicy(yaml),
        env: { LOG_LEVEL: 'warn', SANCTIONS_LIST_URL: `${off.app.sandbox!.url}/sanctions` },
      });
      apps.push(listOnly);
      listOnly.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
      await burst(listOnly);
      const listAlone = await measure(listOnly, off);
      const each = `${N} concurrent × ${BURSTS} bursts a round`;
      return [
        ...rows(`/withdraw, ${each}, screening on: list + provider (baseline: off)`, withProvider),
        ...rows(`/withdraw, ${each}, screening on: list alone (baseline: off)`, listAlone),
      ];
    } finally {
      for (const a of apps) await a.stop();
    }
  },
};

export default bench;
