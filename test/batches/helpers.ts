import { countedBatchRows, createBatchService, type BatchService } from '../../src/batches/index.js';
import type { Pace } from '../../src/batches/pace.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { CLIENT, DEST, groups, quietLogger, world, type PolicyOptions, type World } from '../withdrawals/helpers.js';

export const HEAD = 'address,amount,currency,network,client_email,reference';

/** A payout file of `n` rows of `amount` USDT on BSC, each with its own reference. */
export const payoutFile = (n: number, amount: string | ((i: number) => string), prefix = 'INV') =>
  [
    HEAD,
    ...Array.from(
      { length: n },
      (_, i) => `${DEST},${typeof amount === 'string' ? amount : amount(i)},USDT,BSC,${CLIENT},${prefix}-${i + 1}`,
    ),
  ].join('\n');

export interface BatchWorld extends World {
  batches: BatchService;
  rebuildBatches(pace?: Pace): BatchService;
}

/** The withdrawal world of test/withdrawals (a real store, the sandbox over HTTP) with the batch service on it. */
export async function batchWorld(o: { policy?: PolicyOptions; pace?: Pace } = {}): Promise<BatchWorld> {
  const w = await world({
    policy: { dailyLimit: { USDT: '1000000' }, ...o.policy },
    service: { counted: countedBatchRows },
  });
  const build = (pace: Pace = o.pace ?? { concurrency: 4, perSecond: 500 }) =>
    createBatchService({
      store: w.store,
      withdrawals: w.service,
      policy: fixedPolicy(w.policy),
      groups,
      logger: quietLogger(),
      now: () => w.clock.now,
      pace,
      retryMs: 50,
    });
  const bw = w as BatchWorld;
  bw.batches = build();
  bw.rebuildBatches = (pace) => {
    bw.batches.close();
    bw.batches = build(pace);
    return bw.batches;
  };
  const close = w.close;
  bw.close = async () => {
    await bw.batches.idle();
    bw.batches.close();
    await close();
  };
  return bw;
}
