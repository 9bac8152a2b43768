/**
 * Withdrawals through the whole app (HTTP mode), its wallet service (sandbox) and Slack's Web
 * API (fake) in a child process (bench/world.ts), remote as they are in production:
 *
 * (a) idle click to send: last approval click -> the withdrawal call arriving at the wallet
 *     service, one request at a time on an otherwise idle app (1-approval tier), beside its
 *     durability floor: the two compare-and-set commits that must be on disk before the call
 *     (the approval, then the send claim), back to back on a fresh store, measured right after
 *     each click. Nothing else arrives, so nothing should wait (acks-first's quiet window is
 *     for bursts only).
 * (b) 100 requests approved by 100 concurrent clicks, in a few rounds on fresh apps: exactly
 *     100 sends must reach the service each round; click -> request `completed` (as the store
 *     shows it) beside 100 concurrent compare-and-set commits on a fresh store, and beside
 *     100 concurrent chains of the three commits a send needs (approve, claim, result); and
 *     click -> HTTP ack beside 100 concurrent clicks on a bare Bolt app's `noop` button (same
 *     bodies, same world, same process, right after each of our rounds).
 *
 * Both are measured in five rounds (BENCH_ROUNDS), each beside its own baseline: each ratio is
 * reported as the median of the rounds' and the worst round's.
 *
 * Arrival times at the sandbox are stamped in the world process as its request log records
 * them (process.hrtime: CLOCK_MONOTONIC, the same clock as this process's nowMs()).
 */
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../src/store/index.js';
import { WITHDRAWALS, type RequestInput, type WithdrawalRequest } from '../src/withdrawals/index.js';
import type { WithdrawalState } from '../src/withdrawals/types.js';
import { cardKey } from '../src/slack/withdrawal/index.js';
import { approverDmKey } from '../src/slack/withdrawal-notify.js';
import { startBareBoltApp, type BareBolt } from '../test/helpers/bare-bolt.js';
import { blockAction, sendToBolt, type SlackRequestBody } from '../test/helpers/slack-requests.js';
import { CHANNELS, FINANCE_GROUP, USERS } from '../test/helpers/treasury-app.js';
import {
  makeTempDir,
  nowMs,
  percentile,
  removeDir,
  result,
  ROUNDS,
  roundsResult,
  type Bench,
  type BenchResult,
} from './lib.js';
import { startWorld, type World } from './world-client.js';
import { startWorldApp, type WorldApp } from './world-app.js';

/** Clicks per round, one at a time, on an otherwise idle app. */
const SEQUENTIAL = 20;
const WARMUP = 3;
const CONCURRENT = 100;
const WARMUP_ROUNDS = 1;
const WAIT_MS = 60_000;
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const WITHDRAW_PATH = '/api/merchantClientWithdrawal';
const BENCH = 'withdrawals';
/** The test policy's approvers: each is asked by DM once a card is posted. */
const approvers = [USERS.carol, USERS.dave, USERS.erin];

/** 1 USDT: the 1-approval tier, and a few hundred of them stay far below the 50,000 USDT daily limit. */
const input = (i: number): RequestInput => ({
  amount: '1',
  currency: 'USDT',
  network: 'BSC',
  destination: DEST,
  clientEmail: CLIENT,
  note: `bench ${i}`,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined | false, pollMs = 2): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** Our app against a world; `t.url`, `t.signingSecret` as for sendToBolt. */
interface Target {
  world: World;
  app: WorldApp;
}

async function setup(world: World, o: Parameters<typeof startWorldApp>[1]): Promise<Target> {
  const app = await startWorldApp(world, o);
  await world.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
  return { world, app };
}

const deps = (t: Target) => t.app.app.deps;

async function requestMany(t: Target, n: number, from: number): Promise<WithdrawalRequest[]> {
  const outcomes = await Promise.all(
    Array.from({ length: n }, (_, i) => deps(t).withdrawals.request(input(from + i), USERS.alice)),
  );
  const made = outcomes.map((o) => {
    if (!o.ok) throw new Error(`request refused (${o.rule}): ${o.message}`);
    return o.request;
  });
  // Untimed: the approval cards are posted, so the clicks land on real cards, and the approvers'
  // DMs (sent once each card is posted) are out too, so none of that work falls into a timed round.
  await deps(t).outbox.drain(WAIT_MS);
  await until("the approvers' DMs", () =>
    made.every((r) => approvers.every((u) => deps(t).outbox.message(approverDmKey(r.id, u))?.ts)),
  );
  await deps(t).outbox.drain(WAIT_MS);
  return made;
}

/** The signed clicks on each request's card (as Slack sends them: the message the button is on, blocks included), built before any timer starts. */
async function approveClicks(
  t: Target,
  rs: readonly WithdrawalRequest[],
  actionId = 'wd_approve',
): Promise<SlackRequestBody[]> {
  const posted = new Map((await t.world.channel(CHANNELS.approvals)).map((m) => [m.ts, m]));
  return Promise.all(
    rs.map(async (r) => {
      const card = deps(t).outbox.message(cardKey(r.id));
      const m = card?.ts ? posted.get(card.ts) : undefined;
      if (!m) throw new Error(`no approval card for ${r.id}`);
      const [responseUrl] = await t.world.responseUrls(1, {
        channel: CHANNELS.approvals,
        user: USERS.carol,
        messageTs: m.ts,
      });
      return blockAction({
        userId: USERS.carol,
        channelId: CHANNELS.approvals,
        message: { ts: m.ts, text: m.text ?? '', blocks: m.blocks ?? [] },
        responseUrl: responseUrl!,
        actions: [{ actionId, value: r.id }],
      });
    }),
  );
}

async function click(url: string, signingSecret: string, body: SlackRequestBody): Promise<void> {
  const res = await sendToBolt(url, signingSecret, body);
  if (res.status !== 200) throw new Error(`click answered ${res.status}: ${res.body.slice(0, 200)}`);
}

const state = (t: Target, id: string) => deps(t).withdrawals.get(id)?.state;

function record(r: WithdrawalRequest, i: number): WithdrawalRequest {
  return { ...r, id: `wd_${i}`, merchantReference: `ref_${i}` };
}

/** read-check-put, as the service does it; throws if the state is not the expected one. */
function cas(store: Store, id: string, from: WithdrawalState, to: WithdrawalState): Promise<void> {
  return store.commit((tx) => {
    const cur = tx.get(WITHDRAWALS, id);
    if (cur?.state !== from) throw new Error(`${id} is ${cur?.state}, expected ${from}`);
    tx.put(WITHDRAWALS, id, {
      ...cur,
      state: to,
      history: [...cur.history, { at: new Date().toISOString(), state: to, by: 'bench' }],
    });
  });
}

/** A fresh store holding `n` copies of a real request (ids wd_0..), all pending. */
async function freshStore(sample: WithdrawalRequest, n: number): Promise<{ store: Store; dir: string }> {
  const dir = await makeTempDir('bench-withdrawals-floor');
  const store = await openStore({ dir });
  await store.commit((tx) => {
    for (let i = 0; i < n; i++) tx.put(WITHDRAWALS, `wd_${i}`, { ...record(sample, i), state: 'pending' });
  });
  return { store, dir };
}

async function closeStore(s: { store: Store; dir: string }): Promise<void> {
  await s.store.close();
  await removeDir(s.dir);
}

async function clickToSend(world: World): Promise<BenchResult[]> {
  const t = await setup(world, { outbox: { paceMs: 0, burstThreshold: 1_000_000 } });
  const total = WARMUP + ROUNDS * SEQUENTIAL;
  try {
    const sendsBefore = (await world.sandboxStats()).withdrawalsCommitted;
    const latencies: number[] = [];
    const floor: number[] = [];
    let floorStore: { store: Store; dir: string } | undefined;
    try {
      for (let i = 0; i < total; i++) {
        const [r] = await requestMany(t, 1, i);
        if (!floorStore) floorStore = await freshStore(r!, total);
        const [body] = await approveClicks(t, [r!]);
        const start = nowMs();
        await click(t.app.app.url, t.app.signingSecret, body!);
        // Untimed: the send, its result and the card edits finish before anything else runs.
        await until('completion', () => {
          const s = state(t, r!.id);
          if (s !== 'pending' && s !== 'approved' && s !== 'executing' && s !== 'completed')
            throw new Error(`request ${r!.id} ended ${s}`);
          return s === 'completed';
        });
        await deps(t).outbox.drain(WAIT_MS);
        // Completed, so the call has reached the sandbox; the world stamped when.
        const arrived = (await world.arrivals(WITHDRAW_PATH, [r!.merchantReference]))[r!.merchantReference];
        if (arrived === undefined) throw new Error(`the sandbox has no withdrawal call for ${r!.id}`);
        // The floor sample right after, on the same disk, so drift in fsync latency hits both alike.
        const f = nowMs();
        await cas(floorStore.store, `wd_${i}`, 'pending', 'approved');
        await cas(floorStore.store, `wd_${i}`, 'approved', 'executing');
        if (i >= WARMUP) {
          floor.push(nowMs() - f);
          latencies.push(arrived - start);
        }
      }
    } finally {
      if (floorStore) await closeStore(floorStore);
    }
    const sends = (await world.sandboxStats()).withdrawalsCommitted - sendsBefore;
    if (sends !== total) throw new Error(`expected ${total} sends, the sandbox committed ${sends}`);

    // Consecutive clicks make a round, each beside the floor samples taken right after its own clicks.
    const rounds = (p: number) =>
      Array.from({ length: ROUNDS }, (_, r) => {
        const at = (xs: number[]) => xs.slice(r * SEQUENTIAL, (r + 1) * SEQUENTIAL);
        return { value: percentile(at(latencies), p), baseline: percentile(at(floor), p) };
      });
    const c = `idle click to send: ${SEQUENTIAL} requests a round, one at a time, 1 approval`;
    const base = 'baseline: approve + claim commits back to back';
    return [
      roundsResult({
        bench: BENCH,
        case: c,
        metric: `last click→wallet call p50 (${base})`,
        unit: 'ms',
        rounds: rounds(50),
        better: 'lower',
      }),
      roundsResult({
        bench: BENCH,
        case: c,
        metric: `last click→wallet call, slowest of a round (${base}, slowest)`,
        unit: 'ms',
        rounds: rounds(100),
        better: 'lower',
      }),
    ];
  } finally {
    await t.app.stop();
  }
}

interface RoundResult {
  e2e: number[];
  acks: number[];
  /** The bare Bolt app's acks of the same clicks (its `noop` button), right after ours. */
  bareAcks: number[];
  wall: number;
  single: number[];
  chained: number[];
  chainedWall: number;
}

async function concurrentRound(
  world: World,
  bare: BareBolt,
  signingSecret: string,
  round: number,
): Promise<RoundResult> {
  // Test pacing (20 ms) rather than none: in production (1.1 s) card edits barely compete with sends.
  const t = await setup(world, { outbox: { burstThreshold: 1_000_000 }, signingSecret });
  let requests: WithdrawalRequest[];
  const clickedAt: number[] = [];
  const doneAt: Array<number | undefined> = [];
  const acks: number[] = [];
  const bareAcks: number[] = [];
  try {
    // Notes numbered across rounds, as the requests of one long-lived service would be.
    requests = await requestMany(t, CONCURRENT, round * CONCURRENT);
    const bodies = await approveClicks(t, requests);
    const bareBodies = await approveClicks(t, requests, 'noop');
    const before = await world.sandboxStats();

    // Each completion stamped as the service applies it (its change hook, the one the app's own
    // parts listen on), not polled: a poll of every request on every turn of the loop ran in this
    // process during our clicks only, and cost their acks what the bare app's never paid. A
    // failed or unknown request stops the bench, since its time would not be a send's.
    const indexOf = new Map(requests.map((r, i) => [r.id, i]));
    let left = requests.length;
    let ended: Error | undefined;
    let allDone!: () => void;
    const done = new Promise<void>((r) => (allDone = r));
    const unsubscribe = deps(t).withdrawals.subscribe(({ request: r }) => {
      const i = indexOf.get(r.id);
      if (i === undefined || doneAt[i] !== undefined) return;
      if (r.state === 'completed') {
        doneAt[i] = nowMs();
        if (--left === 0) allDone();
      } else if (r.state !== 'pending' && r.state !== 'approved' && r.state !== 'executing') {
        ended ??= new Error(`request ${r.id} ended ${r.state}`);
        allDone();
      }
    });
    const watching = (async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((r) => (timer = setTimeout(r, WAIT_MS)));
      try {
        await Promise.race([done, late]);
      } finally {
        clearTimeout(timer);
        unsubscribe();
      }
      if (ended) throw ended;
      if (left > 0) throw new Error(`${left} of ${requests.length} withdrawals not completed after ${WAIT_MS} ms`);
    })();
    // Awaited after the clicks; a failure before then must not become an unhandled rejection.
    watching.catch(() => undefined);
    await Promise.all(
      bodies.map(async (body, i) => {
        clickedAt[i] = nowMs();
        await click(t.app.app.url, t.app.signingSecret, body);
        acks.push(nowMs() - clickedAt[i]!);
      }),
    );
    await watching;
    await deps(t).outbox.drain(WAIT_MS);

    const after = await world.sandboxStats();
    const sends = after.withdrawalsCommitted - before.withdrawalsCommitted;
    const calls = after.withdrawals - before.withdrawals;
    if (sends !== CONCURRENT || calls !== CONCURRENT)
      throw new Error(`expected exactly ${CONCURRENT} sends, the sandbox got ${calls} calls and committed ${sends}`);

    // The bare app's round: the same bodies but its `noop` button, same process, same world.
    await Promise.all(
      bareBodies.map(async (body) => {
        const start = nowMs();
        await click(bare.url, signingSecret, body);
        bareAcks.push(nowMs() - start);
      }),
    );
  } finally {
    await t.app.stop();
  }

  // The floors, with the app stopped: the same records, CONCURRENT at once, on a fresh store.
  const concurrently = async (steps: Array<[WithdrawalState, WithdrawalState]>) => {
    const s = await freshStore(requests[0]!, CONCURRENT);
    try {
      const start = nowMs();
      const lat = await Promise.all(
        requests.map(async (_, i) => {
          for (const [from, to] of steps) await cas(s.store, `wd_${i}`, from, to);
          return nowMs() - start;
        }),
      );
      return { lat, wall: nowMs() - start };
    } finally {
      await closeStore(s);
    }
  };
  const single = await concurrently([['pending', 'approved']]);
  const chained = await concurrently([
    ['pending', 'approved'],
    ['approved', 'executing'],
    ['executing', 'completed'],
  ]);
  return {
    e2e: requests.map((_, i) => doneAt[i]! - clickedAt[i]!),
    acks,
    bareAcks,
    wall: Math.max(...(doneAt as number[])) - Math.min(...clickedAt),
    single: single.lat,
    chained: chained.lat,
    chainedWall: chained.wall,
  };
}

async function concurrentApprovals(world: World): Promise<BenchResult[]> {
  const rounds: RoundResult[] = [];
  const signingSecret = randomBytes(16).toString('hex');
  const bare = await startBareBoltApp({ fakeSlackUrl: world.info.fakeSlackUrl, signingSecret });
  try {
    // A fresh app per round: no leftover card edits from the previous round in the outbox. The
    // first round only warms the JIT up (its sends are still checked).
    for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
      const round = await concurrentRound(world, bare, signingSecret, r);
      if (r >= WARMUP_ROUNDS) rounds.push(round);
    }
  } finally {
    await bare.stop();
  }
  type Sample = 'e2e' | 'acks' | 'bareAcks' | 'single' | 'chained';
  // Each round's figure beside the same round's baseline.
  const per = (k: Sample, base: Sample, p: number) =>
    rounds.map((x) => ({ value: percentile(x[k], p), baseline: percentile(x[base], p) }));

  const c = `${CONCURRENT} approved at once, 1 approval each, ${ROUNDS} rounds`;
  const one = `baseline: ${CONCURRENT} concurrent CAS commits, fresh store`;
  const three = `baseline: ${CONCURRENT} concurrent approve→claim→result CAS chains`;
  const row = (metric: string, k: Sample, base: Sample, p: number) =>
    roundsResult({ bench: BENCH, case: c, metric, unit: 'ms', rounds: per(k, base, p), better: 'lower' });
  return [
    // Every round threw unless the sandbox got and committed exactly CONCURRENT withdrawals.
    result({
      bench: BENCH,
      case: c,
      metric: `sends at the wallet service per round (must be exactly ${CONCURRENT})`,
      value: CONCURRENT,
      unit: 'sends',
    }),
    row(`click→completed p50 (${one})`, 'e2e', 'single', 50),
    row(`click→completed p99 (${one})`, 'e2e', 'single', 99),
    row(`click→completed p50 (${three})`, 'e2e', 'chained', 50),
    row(`click→completed p99 (${three})`, 'e2e', 'chained', 99),
    roundsResult({
      bench: BENCH,
      case: c,
      metric: `first click→all ${CONCURRENT} completed (${three})`,
      unit: 'ms',
      rounds: rounds.map((x) => ({ value: x.wall, baseline: x.chainedWall })),
      better: 'lower',
    }),
    row('click ack p50 (bare Bolt noop button)', 'acks', 'bareAcks', 50),
    row('click ack p99 (bare Bolt noop button)', 'acks', 'bareAcks', 99),
  ];
}

const bench: Bench = {
  name: 'withdrawals',
  description: `idle click→wallet call (${SEQUENTIAL} one at a time a round) and ${CONCURRENT} concurrent approvals→completed vs store commits, ${ROUNDS} rounds`,
  async run() {
    const world = await startWorld({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    try {
      // BENCH_WITHDRAWALS=acks: only the concurrent rounds (the click acks); =idle: only the idle
      // click to send; for quick comparisons.
      const only = process.env.BENCH_WITHDRAWALS;
      const sequential = only === 'acks' ? [] : await clickToSend(world);
      return [...sequential, ...(only === 'idle' ? [] : await concurrentApprovals(world))];
    } finally {
      await world.close();
    }
  },
};

export default bench;
