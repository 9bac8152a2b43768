/**
 * Withdrawals through the whole app (HTTP mode, fake Slack, embedded sandbox wallet service):
 *
 * (a) last approval click -> the withdrawal call arriving at the wallet service, one request
 *     at a time (1-approval tier), beside its durability floor: the two compare-and-set
 *     commits that must be on disk before the call (the approval, then the send claim),
 *     back to back on a fresh store.
 * (b) 100 requests approved by 100 concurrent clicks, in a few rounds on fresh apps: exactly
 *     100 sends must reach the service each round; click -> request `completed` (as the store
 *     shows it) beside 100 concurrent compare-and-set commits on a fresh store, and beside
 *     100 concurrent chains of the three commits a send needs (approve, claim, result).
 *
 * Arrival times at the sandbox are taken by timestamping what its request log records
 * (stats.requests.push), which is exact and costs nothing on the measured path; polling
 * would keep the event loop spinning while the request is under way.
 */
import type { RecordedRequest, Sandbox } from '../src/sandbox/index.js';
import { openStore, type Store } from '../src/store/index.js';
import { WITHDRAWALS, type RequestInput, type WithdrawalRequest } from '../src/withdrawals/index.js';
import type { WithdrawalState } from '../src/withdrawals/types.js';
import { cardKey } from '../src/slack/withdrawal-card.js';
import { blockAction, sendToBolt, type SlackRequestBody } from '../test/helpers/slack-requests.js';
import { CHANNELS, startTestApp, USERS, type TestApp } from '../test/helpers/treasury-app.js';
import { makeTempDir, nowMs, percentile, removeDir, result, type Bench, type BenchResult } from './lib.js';

const SEQUENTIAL = 100;
const WARMUP = 3;
const CONCURRENT = 100;
const ROUNDS = 3;
const WARMUP_ROUNDS = 1;
const WAIT_MS = 60_000;
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const WITHDRAW_PATH = '/api/merchantClientWithdrawal';
const BENCH = 'withdrawals';

/** 1 USDT: the 1-approval tier, and a few hundred of them stay far below the 50,000 USDT daily limit. */
const input = (i: number): RequestInput => ({ amount: '1', currency: 'USDT', network: 'BSC', destination: DEST, clientEmail: CLIENT, note: `bench ${i}` });

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

/** When each withdrawal call reached the sandbox, by merchantReference. */
function arrivals(sandbox: Sandbox): (merchantReference: string) => number | undefined {
  const at = new WeakMap<RecordedRequest, number>();
  const log = sandbox.stats.requests;
  const push = log.push.bind(log);
  Object.defineProperty(log, 'push', {
    configurable: true,
    value: (...items: RecordedRequest[]) => {
      const t = nowMs();
      for (const item of items) at.set(item, t);
      return push(...items);
    },
  });
  return (ref) => {
    const rec = sandbox.stats.requests.find((r) => r.path.startsWith(WITHDRAW_PATH) && r.body.includes(ref));
    if (!rec) return undefined;
    const t = at.get(rec);
    // Recorded but not through push: the sandbox changed how it logs and this bench must follow.
    if (t === undefined) throw new Error('the sandbox recorded a request without stats.requests.push; arrival times are unavailable');
    return t;
  };
}

async function setup(o: Parameters<typeof startTestApp>[0]): Promise<TestApp> {
  const t = await startTestApp(o);
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
  return t;
}

async function requestMany(t: TestApp, n: number, from: number): Promise<WithdrawalRequest[]> {
  const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => t.app.deps.withdrawals.request(input(from + i), USERS.alice)));
  const made = outcomes.map((o) => {
    if (!o.ok) throw new Error(`request refused (${o.rule}): ${o.message}`);
    return o.request;
  });
  // Untimed: the approval cards are posted, so the clicks land on real cards and the outbox is idle.
  await t.app.deps.outbox.drain(WAIT_MS);
  return made;
}

/** The signed click on a request's card, built before any timer starts. */
function approveClick(t: TestApp, r: WithdrawalRequest): SlackRequestBody {
  const card = t.app.deps.outbox.message(cardKey(r.id));
  const posted = card?.ts ? t.fake.channel(CHANNELS.approvals).find((m) => m.ts === card.ts) : undefined;
  if (!posted) throw new Error(`no approval card for ${r.id}`);
  // As Slack sends it: the message the button is on, blocks included.
  return blockAction({
    userId: USERS.carol,
    channelId: CHANNELS.approvals,
    message: { ts: posted.ts, text: posted.text ?? '', blocks: posted.blocks ?? [] },
    responseUrl: t.fake.responseUrl({ channel: CHANNELS.approvals, user: USERS.carol, messageTs: posted.ts }),
    actions: [{ actionId: 'wd_approve', value: r.id }],
  });
}

async function click(t: TestApp, body: SlackRequestBody): Promise<void> {
  const res = await sendToBolt(t.app.url, t.signingSecret, body);
  if (res.status !== 200) throw new Error(`click answered ${res.status}: ${res.body.slice(0, 200)}`);
}

const state = (t: TestApp, id: string) => t.app.deps.withdrawals.get(id)?.state;

function record(r: WithdrawalRequest, i: number): WithdrawalRequest {
  return { ...r, id: `wd_${i}`, merchantReference: `ref_${i}` };
}

/** read-check-put, as the service does it; throws if the state is not the expected one. */
function cas(store: Store, id: string, from: WithdrawalState, to: WithdrawalState): Promise<void> {
  return store.commit((tx) => {
    const cur = tx.get(WITHDRAWALS, id);
    if (cur?.state !== from) throw new Error(`${id} is ${cur?.state}, expected ${from}`);
    tx.put(WITHDRAWALS, id, { ...cur, state: to, history: [...cur.history, { at: new Date().toISOString(), state: to, by: 'bench' }] });
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

async function clickToSend(): Promise<BenchResult[]> {
  const t = await setup({ outbox: { paceMs: 0, burstThreshold: 1_000_000 } });
  try {
    const arrivedAt = arrivals(t.app.sandbox!);
    const latencies: number[] = [];
    const floor: number[] = [];
    let floorStore: { store: Store; dir: string } | undefined;
    try {
      for (let i = 0; i < WARMUP + SEQUENTIAL; i++) {
        const [r] = await requestMany(t, 1, i);
        if (!floorStore) floorStore = await freshStore(r!, WARMUP + SEQUENTIAL);
        const body = approveClick(t, r!);
        const start = nowMs();
        await click(t, body);
        const arrived = await until('the withdrawal call at the sandbox', () => arrivedAt(r!.merchantReference));
        // Untimed: the send, its result and the card edits finish before anything else runs.
        await until('completion', () => {
          const s = state(t, r!.id);
          if (s !== 'pending' && s !== 'approved' && s !== 'executing' && s !== 'completed') throw new Error(`request ${r!.id} ended ${s}`);
          return s === 'completed';
        });
        await t.app.deps.outbox.drain(WAIT_MS);
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
    const sends = t.app.sandbox!.stats.withdrawalsCommitted;
    if (sends !== WARMUP + SEQUENTIAL) throw new Error(`expected ${WARMUP + SEQUENTIAL} sends, the sandbox committed ${sends}`);

    const c = `${SEQUENTIAL} requests one at a time, 1 approval`;
    const base = 'baseline: approve + claim commits back to back';
    return [
      result({ bench: BENCH, case: c, metric: `last click→wallet call p50 (${base})`, value: percentile(latencies, 50), unit: 'ms', baseline: percentile(floor, 50), better: 'lower' }),
      result({ bench: BENCH, case: c, metric: `last click→wallet call p99 (${base})`, value: percentile(latencies, 99), unit: 'ms', baseline: percentile(floor, 99), better: 'lower' }),
    ];
  } finally {
    await t.stop();
  }
}

interface RoundResult {
  e2e: number[];
  acks: number[];
  wall: number;
  single: number[];
  chained: number[];
  chainedWall: number;
}

async function concurrentRound(): Promise<RoundResult> {
  // Test pacing (20 ms) rather than none: in production (1.1 s) card edits barely compete with sends.
  const t = await setup({ outbox: { burstThreshold: 1_000_000 } });
  let requests: WithdrawalRequest[];
  const clickedAt: number[] = [];
  const doneAt: Array<number | undefined> = [];
  const acks: number[] = [];
  try {
    const sandbox = t.app.sandbox!;
    requests = await requestMany(t, CONCURRENT, 0);
    const bodies = requests.map((r) => approveClick(t, r));
    const sendsBefore = sandbox.stats.withdrawalsCommitted;
    const callsBefore = sandbox.stats.withdrawals;

    // Polls every turn of the event loop so a completion is seen when it happens; a failed or
    // unknown request stops the bench, since its time would not be a send's.
    const watching = (async () => {
      const deadline = Date.now() + WAIT_MS;
      let left = requests.length;
      while (left > 0) {
        for (let i = 0; i < requests.length; i++) {
          if (doneAt[i] !== undefined || clickedAt[i] === undefined) continue;
          const s = state(t, requests[i]!.id);
          if (s === 'completed') {
            doneAt[i] = nowMs();
            left--;
          } else if (s !== 'pending' && s !== 'approved' && s !== 'executing') {
            throw new Error(`request ${requests[i]!.id} ended ${s}`);
          }
        }
        if (Date.now() > deadline) throw new Error(`${left} of ${requests.length} withdrawals not completed after ${WAIT_MS} ms`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    // Awaited after the clicks; a failure before then must not become an unhandled rejection.
    watching.catch(() => undefined);
    await Promise.all(
      bodies.map(async (body, i) => {
        clickedAt[i] = nowMs();
        await click(t, body);
        acks.push(nowMs() - clickedAt[i]!);
      }),
    );
    await watching;

    const sends = sandbox.stats.withdrawalsCommitted - sendsBefore;
    const calls = sandbox.stats.withdrawals - callsBefore;
    if (sends !== CONCURRENT || calls !== CONCURRENT) throw new Error(`expected exactly ${CONCURRENT} sends, the sandbox got ${calls} calls and committed ${sends}`);
  } finally {
    await t.stop();
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
    wall: Math.max(...(doneAt as number[])) - Math.min(...clickedAt),
    single: single.lat,
    chained: chained.lat,
    chainedWall: chained.wall,
  };
}

async function concurrentApprovals(): Promise<BenchResult[]> {
  const rounds: RoundResult[] = [];
  // A fresh app per round: no leftover card edits from the previous round in the outbox. The
  // first round only warms the JIT up (its sends are still checked).
  for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
    const round = await concurrentRound();
    if (r >= WARMUP_ROUNDS) rounds.push(round);
  }
  const all = (k: 'e2e' | 'acks' | 'single' | 'chained') => rounds.flatMap((x) => x[k]);
  const median = (xs: number[]) => percentile(xs, 50);

  const c = `${CONCURRENT} approved at once, 1 approval each, ${ROUNDS} rounds`;
  const one = `baseline: ${CONCURRENT} concurrent CAS commits, fresh store`;
  const three = `baseline: ${CONCURRENT} concurrent approve→claim→result CAS chains`;
  return [
    // Every round threw unless the sandbox got and committed exactly CONCURRENT withdrawals.
    result({ bench: BENCH, case: c, metric: `sends at the wallet service per round (must be exactly ${CONCURRENT})`, value: CONCURRENT, unit: 'sends' }),
    result({ bench: BENCH, case: c, metric: `click→completed p50 (${one})`, value: percentile(all('e2e'), 50), unit: 'ms', baseline: percentile(all('single'), 50), better: 'lower' }),
    result({ bench: BENCH, case: c, metric: `click→completed p99 (${one})`, value: percentile(all('e2e'), 99), unit: 'ms', baseline: percentile(all('single'), 99), better: 'lower' }),
    result({ bench: BENCH, case: c, metric: `click→completed p50 (${three})`, value: percentile(all('e2e'), 50), unit: 'ms', baseline: percentile(all('chained'), 50), better: 'lower' }),
    result({ bench: BENCH, case: c, metric: `click→completed p99 (${three})`, value: percentile(all('e2e'), 99), unit: 'ms', baseline: percentile(all('chained'), 99), better: 'lower' }),
    result({
      bench: BENCH,
      case: c,
      metric: `first click→all ${CONCURRENT} completed, median round (${three})`,
      value: median(rounds.map((x) => x.wall)),
      unit: 'ms',
      baseline: median(rounds.map((x) => x.chainedWall)),
      better: 'lower',
    }),
    result({ bench: BENCH, case: c, metric: 'click ack p50', value: percentile(all('acks'), 50), unit: 'ms', better: 'lower' }),
    result({ bench: BENCH, case: c, metric: 'click ack p99', value: percentile(all('acks'), 99), unit: 'ms', better: 'lower' }),
  ];
}

const bench: Bench = {
  name: 'withdrawals',
  description: `last click→wallet call (${SEQUENTIAL} one at a time) and ${CONCURRENT} concurrent approvals→completed vs store commits`,
  async run() {
    return [...(await clickToSend()), ...(await concurrentApprovals())];
  },
};

export default bench;
