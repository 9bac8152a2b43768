/**
 * A piscina worker pool made on first use, for CPU work that must never run on the event loop
 * that acknowledges Slack's requests (QR codes, digest charts). At most two threads, and one
 * core left to the main thread; idle threads are unref'd by piscina and end after 30 s, so they
 * never hold the process open. Workers are plain .mjs files so they load the same under tsx,
 * vitest and the benchmarks.
 */
import os from 'node:os';
import { Piscina } from 'piscina';

export function lazyWorkerPool(worker: URL, o: { minThreads: number }): () => Piscina {
  let pool: Piscina | undefined;
  return () =>
    (pool ??= new Piscina({
      filename: worker.href,
      minThreads: o.minThreads,
      maxThreads: Math.max(1, Math.min(2, os.availableParallelism() - 1)),
      idleTimeout: 30_000,
    }));
}
