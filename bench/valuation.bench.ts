/**
 * Valuation on vs off (issue 24), in the same run: the HTTP ack time of `/withdraw` one-line
 * commands and of approval clicks on an app whose policy is written in value (tiers, daily limit,
 * note, step-up by USD: every request valued from the price cache) beside the same app with the
 * same tiers in native units; the two apps run side by side and take turns within each round, so
 * both see the same machine. Also the price refreshes made (one call for every asset, at most
 * once a minute) over the run. Both apps as deployed (HTTP mode, production's log level) against
 * one world in a child process (bench/world.ts: the sandbox with its price API, the fake Slack),
 * signed requests as Slack sends them.
 *
 * Each phase is a burst: a command (or click) goes as soon as the one before it is acknowledged.
 * The app acknowledges first and parks the work behind its acks while requests keep coming
 * (src/slack/acks-first.ts), so right after the last ack only the first few requests exist; the
 * bench waits for every one to be answered before reading the store (read at once, it found
 * "only 1 requests were valued": made late, not valued wrong). Each app has its burst in turn, left
 * quiet before it (its Slack posts delivered, its sends made): driven alternately, request by
 * request, each app's parked work fell into the other's acks, and an A/A run (both apps off)
 * gave p99 ratios of 0.83x to 1.14x, too noisy to tell 10%.
 *
 * Measured in rounds (ROUNDS, BENCH_ROUNDS), each beside its own baseline: a p99 of acks that take
 * about a millisecond is one collection or one neighbour's burst, so the headline is the median
 * round and the worst round is kept beside it.
 */
import { parsePolicy } from '../src/policy/load.js';
import { MIN_REFRESH_MS } from '../src/prices/index.js';
import { blockAction, sendToBolt, slashCommand, type SlackRequestBody } from '../test/helpers/slack-requests.js';
import { CHANNELS, USERS } from '../test/helpers/treasury-app.js';
import { until } from '../test/helpers/wait.js';
import { nowMs, percentile, result, ROUNDS, roundsResult, type Bench, type BenchResult } from './lib.js';
import { startWorld, type World } from './world-client.js';
import { startWorldApp, type WorldApp } from './world-app.js';

/** Per round and app: p99 is then the 99th of 100 acks, not the slowest one alone. */
const N = 100;
const WARMUP = 5;
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
/** No pacing: the posts are drained between bursts, and at Slack's pace that takes longer than the bursts. */
const outbox = { paceMs: 0 };
/** The work parked behind a burst's acks drains in seconds; this only bounds a hang. */
const SETTLE_MS = 60_000;

const policy = (tiers: string, extra: string) =>
  parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}, ${USERS.dave}]
withdrawals:
  tiers:
    ${tiers}:
      - { max: 1000000, approvals: 1 }
      - { approvals: 2 }
  ${extra}
`);

type Side = 'on' | 'off';
type Acks = { withdraw: number[]; approve: number[] };

/** Still on its way: a click's work (the approval, then the wallet call) is not done before it leaves these. */
const UNDER_WAY = new Set(['pending', 'approved', 'executing']);

/** A signed request's ack time. */
async function acked(a: WorldApp, body: SlackRequestBody, what: string): Promise<number> {
  const t = nowMs();
  const res = await sendToBolt(a.app.url, a.signingSecret, body);
  const ms = nowMs() - t;
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}`);
  return ms;
}

/**
 * One app's turn in a round: a burst of N + WARMUP one-line requests, every one answered
 * "Requested" and, on the valued app, valued; then a burst of clicks approving each, every one
 * an approval that reached the wallet. The app is left quiet (its Slack posts delivered) before
 * each burst, so a burst meets only its own work, not the other app's or an earlier one's.
 * The acks after the warm-up.
 */
async function turn(world: World, name: Side, a: WorldApp, from: number): Promise<Acks> {
  const total = N + WARMUP;
  const acks: Acks = { withdraw: [], approve: [] };
  const withdrawals = a.app.deps.withdrawals;
  const before = new Set(withdrawals.list().map((req) => req.id));
  // Built before any timer starts: the world answers over IPC.
  const urls = await world.responseUrls(total, { channel: CHANNELS.command, user: USERS.alice });
  for (let i = 0; i < total; i++) {
    const body = slashCommand({
      command: '/withdraw',
      text: `1 USDT BSC ${DEST} ${CLIENT} bench ${from + i}`,
      userId: USERS.alice,
      channelId: CHANNELS.command,
      responseUrl: urls[i]!,
    });
    const ms = await acked(a, body, '/withdraw');
    if (i >= WARMUP) acks.withdraw.push(ms);
  }
  await world.awaitReplies(urls, 'Requested', SETTLE_MS).catch((err: Error) => {
    throw new Error(`valuation ${name}: /withdraw ${err.message}`);
  });
  const made = withdrawals.list().filter((req) => !before.has(req.id));
  if (made.length !== total) throw new Error(`valuation ${name}: ${made.length} of ${total} requests made`);
  // Every request of the valued app, warm-up included: an unknown value is the top tier, not the case measured.
  const valued = made.filter((req) => req.valuation?.kind === 'known').length;
  if (name === 'on' && valued !== total) throw new Error(`only ${valued} of ${total} requests were valued`);
  const ids = made.filter((req) => req.state === 'pending').map((req) => req.id);
  if (ids.length !== total) throw new Error(`valuation ${name}: ${ids.length} of ${total} requests pending`);
  await a.app.deps.outbox.drain(SETTLE_MS);
  for (let i = 0; i < total; i++) {
    const id = ids[i]!;
    const body = blockAction({
      userId: USERS.carol,
      channelId: CHANNELS.approvals,
      message: { ts: '1700000000.000100' },
      actions: [{ actionId: 'wd_approve', value: id, blockId: `wd:${id}` }],
    });
    const ms = await acked(a, body, 'approve');
    if (i >= WARMUP) acks.approve.push(ms);
  }
  // The clicks' work is parked behind their acks too: each must have been an approval, and sent.
  const left = () => ids.filter((id) => UNDER_WAY.has(withdrawals.get(id)?.state ?? 'pending'));
  await until(`every ${name} click approved and sent`, () => left().length === 0, SETTLE_MS).catch(() => {
    throw new Error(`valuation ${name}: ${left().length} of ${total} requests not sent after the clicks`);
  });
  await a.app.deps.outbox.drain(SETTLE_MS);
  return acks;
}

const bench: Bench = {
  name: 'valuation',
  description: 'ack of /withdraw and approval clicks with valuation on beside off (same run); price refreshes',
  async run(): Promise<BenchResult[]> {
    const world = await startWorld();
    const apps: Partial<Record<Side, WorldApp>> = {};
    const started = Date.now();
    try {
      apps.on = await startWorldApp(world, {
        policy: policy(
          'value',
          'daily_limit: { value: 100000000 }\n  note_required_above: { value: 1000000 }\n  step_up_above: { value: 1000000 }',
        ),
        outbox,
      });
      apps.off = await startWorldApp(world, { policy: policy('default', 'daily_limit: { USDT: 100000000 }'), outbox });
      const on = apps.on.app;
      // The price job's first run (at start) must have answered: a request made before it is
      // unknown in value (the top tier), which is not the case measured.
      await until('the first price refresh', () => on.deps.prices.state().lastOkAt !== undefined, 15_000);
      await world.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
      const rounds: Array<Record<Side, Acks>> = [];
      // Round 0 warms up the code both apps share (the first app's first burst paid for both), unmeasured.
      for (let r = 0; r <= ROUNDS; r++) {
        // A turn each, the order swapped every round: neither app always follows the other.
        const order: Side[] = r % 2 ? ['off', 'on'] : ['on', 'off'];
        const acks: Partial<Record<Side, Acks>> = {};
        for (const name of order) acks[name] = await turn(world, name, apps[name]!, r * (N + WARMUP));
        if (r > 0) rounds.push(acks as Record<Side, Acks>);
      }
      const ms = Date.now() - started;
      const calls = on.deps.prices.state().calls;
      const rows: BenchResult[] = [];
      for (const what of ['withdraw', 'approve'] as const) {
        for (const p of [50, 99]) {
          rows.push(
            roundsResult({
              bench: 'valuation',
              case:
                what === 'withdraw' ? '/withdraw ack, valuation on vs off' : 'approval click ack, valuation on vs off',
              metric: `p${p}`,
              unit: 'ms',
              better: 'lower',
              rounds: rounds.map((acks) => ({
                value: percentile(acks.on[what], p),
                baseline: percentile(acks.off[what], p),
              })),
            }),
          );
        }
      }
      rows.push(
        result({
          bench: 'valuation',
          case: `price refreshes over ${(ms / 60_000).toFixed(1)} min (one call for all 17 assets)`,
          metric: 'calls, beside the most allowed',
          value: calls,
          // One at start, then at most one a minute (MIN_REFRESH_MS), however many ask.
          baseline: 1 + Math.floor(ms / MIN_REFRESH_MS),
          unit: 'calls',
          better: 'lower',
        }),
      );
      return rows;
    } finally {
      await apps.on?.stop();
      await apps.off?.stop();
      await world.close();
    }
  },
};
export default bench;
