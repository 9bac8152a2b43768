/**
 * Store commit throughput and latency with 1k, 10k and 100k records already retained,
 * against the floor any durable store has to pay: appending the same line to a file and
 * fdatasync-ing it. Sequential latency is compared with sequential append + fdatasync;
 * throughput and latency at 32 in flight with the same 32 appenders each fsyncing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { collection, openStore, type Store } from '../src/store/index.js';
import { encodeLine } from '../src/store/journal.js';
import {
  makeTempDir,
  nowMs,
  percentile,
  removeDir,
  result,
  runConcurrent,
  timed,
  type Bench,
  type BenchResult,
} from './lib.js';

const SIZES = [1_000, 10_000, 100_000];
const SEQUENTIAL_OPS = 300;
const CONCURRENT_OPS = 2_000;
const IN_FLIGHT = 32;
const PREFILL_BATCH = 1_000;
/** The benchmark's own loose records, under the name the app uses for withdrawals (same sizes on disk). */
const RECORDS = collection<Record<string, unknown>>('withdrawals');

/** About the shape and size of a withdrawal request. */
function record(i: number): Record<string, unknown> {
  return {
    id: `wd_${i.toString(36).padStart(8, '0')}`,
    state: 'approved',
    amount: `${(i % 100_000) + 1}.125`,
    currency: 'USDT',
    network: 'BSC',
    destination: `0x${i.toString(16).padStart(40, '0')}`,
    requester: 'U0ALICE',
    approvals: [{ user: 'U0CAROL', at: '2025-01-01T00:00:00.000Z' }],
    merchantReference: `ref-${i}`,
    createdAt: '2025-01-01T00:00:00.000Z',
    note: 'quarterly exchange rebalance',
  };
}

const update = (store: Store, i: number, n: number) =>
  store.commit((tx) => {
    const id = String(i % n);
    const r = tx.get(RECORDS, id);
    tx.put(RECORDS, id, { ...r, state: i % 2 ? 'executing' : 'approved', touched: i });
  });

interface Baseline {
  seqP50: number;
  seqP99: number;
  concOpsPerSec: number;
  concP50: number;
  concP99: number;
}

/** Append + fdatasync of a line as long as one store commit's. */
async function measureBaseline(lineBytes: number): Promise<Baseline> {
  const dir = await makeTempDir('bench-fsync');
  try {
    const fh = await fs.open(path.join(dir, 'append.log'), 'a');
    const line = Buffer.from(`${'x'.repeat(lineBytes - 1)}\n`);
    const seq: number[] = [];
    for (let i = 0; i < SEQUENTIAL_OPS; i++) {
      const t = nowMs();
      await fh.write(line);
      await fh.datasync();
      seq.push(nowMs() - t);
    }
    const conc = await runConcurrent(CONCURRENT_OPS, IN_FLIGHT, async () => {
      await fh.write(line);
      await fh.datasync();
    });
    await fh.close();
    return {
      seqP50: percentile(seq, 50),
      seqP99: percentile(seq, 99),
      concOpsPerSec: (CONCURRENT_OPS / conc.ms) * 1000,
      concP50: percentile(conc.latencies, 50),
      concP99: percentile(conc.latencies, 99),
    };
  } finally {
    await removeDir(dir);
  }
}

async function benchSize(n: number, base: Baseline): Promise<BenchResult[]> {
  const dir = await makeTempDir('bench-store');
  const c = `${n / 1000}k records`;
  const out: BenchResult[] = [];
  try {
    let store = await openStore({ dir });
    for (let start = 0; start < n; start += PREFILL_BATCH) {
      await store.commit((tx) => {
        for (let i = start; i < Math.min(n, start + PREFILL_BATCH); i++) tx.put(RECORDS, String(i), record(i));
      });
    }
    await store.close();
    const reopened = await timed(() => openStore({ dir }));
    store = reopened.result;
    out.push(
      result({
        bench: 'store',
        case: c,
        metric: 'open (snapshot + replay)',
        value: reopened.ms,
        unit: 'ms',
        better: 'lower',
      }),
    );

    const seq: number[] = [];
    for (let i = 0; i < SEQUENTIAL_OPS; i++) {
      const t = nowMs();
      await update(store, i, n);
      seq.push(nowMs() - t);
    }
    out.push(
      result({
        bench: 'store',
        case: c,
        metric: 'commit p50, 1 in flight',
        value: percentile(seq, 50),
        unit: 'ms',
        baseline: base.seqP50,
        better: 'lower',
      }),
      result({
        bench: 'store',
        case: c,
        metric: 'commit p99, 1 in flight',
        value: percentile(seq, 99),
        unit: 'ms',
        baseline: base.seqP99,
        better: 'lower',
      }),
    );

    const flushesBefore = store.stats().flushes;
    const compactionsBefore = store.stats().compactions;
    const conc = await runConcurrent(CONCURRENT_OPS, IN_FLIGHT, (i) => update(store, i, n));
    const flushes = store.stats().flushes - flushesBefore;
    out.push(
      result({
        bench: 'store',
        case: c,
        metric: `commits/s, ${IN_FLIGHT} in flight`,
        value: (CONCURRENT_OPS / conc.ms) * 1000,
        unit: 'ops/s',
        baseline: base.concOpsPerSec,
        better: 'higher',
      }),
      result({
        bench: 'store',
        case: c,
        metric: `commit p50, ${IN_FLIGHT} in flight`,
        value: percentile(conc.latencies, 50),
        unit: 'ms',
        baseline: base.concP50,
        better: 'lower',
      }),
      result({
        bench: 'store',
        case: c,
        metric: `commit p99, ${IN_FLIGHT} in flight`,
        value: percentile(conc.latencies, 99),
        unit: 'ms',
        baseline: base.concP99,
        better: 'lower',
      }),
      result({
        bench: 'store',
        case: c,
        metric: `commits per fsync, ${IN_FLIGHT} in flight`,
        value: CONCURRENT_OPS / flushes,
        unit: 'commits',
        better: 'higher',
      }),
      result({
        bench: 'store',
        case: c,
        metric: `snapshots written during the ${IN_FLIGHT}-in-flight run`,
        value: store.stats().compactions - compactionsBefore,
        unit: 'snapshots',
      }),
    );
    await store.close();
  } finally {
    await removeDir(dir);
  }
  return out;
}

const bench: Bench = {
  name: 'store',
  description: `commit latency and throughput at ${SIZES.join(' / ')} retained records vs append + fdatasync`,
  async run() {
    const sample = { ...record(12345), state: 'executing', touched: 12345 };
    const lineBytes = Buffer.byteLength(
      encodeLine(12345, [{ op: 'put', c: 'withdrawals', id: '12345', json: JSON.stringify(sample) }]),
    );
    const base = await measureBaseline(lineBytes);
    const out: BenchResult[] = [
      result({
        bench: 'store',
        case: 'baseline',
        metric: `append + fdatasync of a ${lineBytes} B line, p50`,
        value: base.seqP50,
        unit: 'ms',
        better: 'lower',
      }),
    ];
    for (const n of SIZES) out.push(...(await benchSize(n, base)));
    return out;
  },
};

export default bench;
