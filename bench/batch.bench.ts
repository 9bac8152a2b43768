/**
 * A 1,000-row batch payout from its last approval to every row settled: the real store, the
 * withdrawal service and the batch runner, the sandbox over HTTP (in this process). Reported
 * beside what the runner promises, measured in the same run:
 * - rows per second, beside the pace's own cap (DEFAULT_PACE.perSecond): the ratio says how much
 *   of the allowed rate the sends reach (1.0: the pace, not the app, is the limit);
 * - wallet calls in flight at most, beside the pace's concurrency (the ratio must not pass 1);
 * - the sends a row makes to the service: exactly one per row (beside the row count).
 * - the card's edits per minute while the rows are sent, as its throttle (src/slack/batch/throttle.ts,
 *   the one the card's notifier uses) lets the rows' progress through, beside chat.update's limit.
 */
import { rm } from 'node:fs/promises';
import { countedBatchRows, createBatchService, DEFAULT_PACE } from '../src/batches/index.js';
import { fixedPolicy } from '../src/policy/source.js';
import { createSandbox } from '../src/sandbox/index.js';
import { openStore } from '../src/store/index.js';
import { createWithdrawalService, WITHDRAWALS } from '../src/withdrawals/index.js';
import { CLIENT, groups, quietLogger, tempDir, testPolicy, walletFor } from '../test/withdrawals/helpers.js';
import { payoutFile } from '../test/batches/helpers.js';
import { CHAT_UPDATE_PER_MINUTE, editThrottle } from '../src/slack/batch/throttle.js';
import { nowMs, result, type Bench } from './lib.js';

const ROWS = 1_000;
const BENCH = 'batch';

const bench: Bench = {
  name: BENCH,
  description: `a ${ROWS}-row batch payout: last approval -> every row settled, at the default pace`,
  async run() {
    const dir = await tempDir();
    const sandbox = await createSandbox({ logger: quietLogger(), seed: false });
    sandbox.setBalance(CLIENT, 'USDT', 'BSC', '10000000');
    const store = await openStore({ dir });
    try {
      const policy = fixedPolicy(testPolicy({ dailyLimit: { USDT: '10000000' } }));
      const withdrawals = createWithdrawalService({
        store,
        wallet: walletFor(sandbox.url),
        policy,
        groups,
        logger: quietLogger(),
        counted: countedBatchRows,
      });
      const batches = createBatchService({ store, withdrawals, policy, groups, logger: quietLogger() });
      // The card's throttle, fed the very progress events its notifier hears.
      let edits = 0;
      const throttle = editThrottle({ now: Date.now, later: () => void edits++ });
      batches.subscribe((e) => {
        if (e.type === 'progress' && throttle.offer(e.batch.id)) edits++;
        if (e.type === 'done') edits++;
      });
      const out = await batches.submit({ text: payoutFile(ROWS, '1'), fileName: 'bench.csv' }, 'U0ALICE');
      if (!out.ok) throw new Error(JSON.stringify(out).slice(0, 300));
      const start = nowMs();
      const approved = await batches.approve(out.batch.id, 'U0CAROL');
      if (!approved.ok || !('execution' in approved)) throw new Error('the approval did not start the sends');
      const stats = await approved.execution;
      await batches.idle();
      const seconds = (nowMs() - start) / 1000;
      const settled = store.find(WITHDRAWALS, (r) => r.batch?.id === out.batch.id && r.state === 'completed').length;
      if (settled !== ROWS) throw new Error(`only ${settled} of ${ROWS} rows completed`);
      batches.close();
      throttle.close();
      return [
        result({
          bench: BENCH,
          case: `${ROWS} rows, approval -> all settled`,
          metric: 'rows/s (baseline: the pace cap)',
          value: ROWS / seconds,
          unit: 'rows/s',
          baseline: DEFAULT_PACE.perSecond,
          better: 'higher',
        }),
        result({
          bench: BENCH,
          case: `${ROWS} rows`,
          metric: 'wallet calls in flight, max (baseline: the concurrency cap)',
          value: stats.maxInFlight,
          unit: 'calls',
          baseline: DEFAULT_PACE.concurrency,
          better: 'lower',
        }),
        result({
          bench: BENCH,
          case: `${ROWS} rows`,
          metric: 'withdrawal calls received by the service (baseline: rows)',
          value: sandbox.stats.withdrawals,
          unit: 'calls',
          baseline: ROWS,
          better: 'lower',
        }),
        result({
          bench: BENCH,
          case: `${ROWS} rows`,
          metric: "card edits per minute (baseline: chat.update's limit)",
          value: edits / (seconds / 60),
          unit: 'edits/min',
          baseline: CHAT_UPDATE_PER_MINUTE,
          better: 'lower',
        }),
        result({
          bench: BENCH,
          case: `${ROWS} rows`,
          metric: 'seconds, approval -> all settled',
          value: seconds,
          unit: 's',
        }),
      ];
    } finally {
      await store.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
