/**
 * The store against a model under random write failures: bursts of commits, any of which
 * may hit a refused write, a half-written one or a failed fsync, with snapshots taken often
 * and sometimes failing (refused, or renamed but the directory fsync failed). A burst is
 * issued in two parts: the second queues while the first is being written (so a snapshot
 * can picture commits not yet durable) and the write failure starts with it. After every
 * burst the store holds exactly the commits that resolved, in order (a Map model), and so
 * does a fresh open of the directory.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { collection, openStore, StoreUnavailableError } from '../../src/store/index.js';
import { removeTempDirs, tempDir } from '../store/helpers.js';
import { http as runs } from './config.js';

afterAll(removeTempDirs);

type Op = { op: 'put'; id: string; v: number } | { op: 'del'; id: string };
const W = collection<{ id: string; v: number }>('w');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    id: fc.constantFrom('a', 'b', 'c', 'd', '1', '__proto__'),
    v: fc.integer(),
  }),
  fc.record({ op: fc.constant('del' as const), id: fc.constantFrom('a', 'b', 'c', 'd', '1', '__proto__') }),
);
const burst = fc.record({
  commits: fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
  split: fc.nat({ max: 5 }),
  failure: fc.constantFrom(undefined, undefined, 'write' as const, 'sync' as const, 'partial' as const),
  snapshotFailure: fc.constantFrom(undefined, undefined, 'snapshot' as const, 'dirsync' as const),
});

describe('store under random write failures', () => {
  it('equals the model of resolved commits, in memory and after reopening', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(burst, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(150, 100_000),
        async (bursts, compactAfterBytes) => {
          const dir = await tempDir();
          let failAt: 'write' | 'sync' | 'partial' | undefined;
          let snapshotFailure: 'snapshot' | 'dirsync' | undefined;
          const enospc = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          const gate = (stage: string) => {
            if (failAt && stage === failAt) return enospc();
            if (snapshotFailure && stage === snapshotFailure) {
              // A directory fsync fails once: the rollback's own one (which would stop the store) then works.
              if (snapshotFailure === 'dirsync') snapshotFailure = undefined;
              return enospc();
            }
            return undefined;
          };
          const s = await openStore({ dir, compactAfterBytes, probeIntervalMs: 2, writeGate: gate });
          const model = new Map<string, unknown>();
          try {
            for (const b of bursts) {
              snapshotFailure = b.snapshotFailure;
              const commit = (ops: Op[]) =>
                s
                  .commit((tx) => {
                    for (const o of ops) {
                      if (o.op === 'put') tx.put(W, o.id, { id: o.id, v: o.v });
                      else tx.delete(W, o.id);
                    }
                  })
                  .then(
                    () => ({ ok: true as const, ops }),
                    (err: unknown) => {
                      expect(err).toBeInstanceOf(StoreUnavailableError);
                      return { ok: false as const, ops };
                    },
                  );
              const promises = b.commits.slice(0, b.split).map(commit);
              // The first part's write is under way; the rest queues behind it.
              await new Promise((r) => setImmediate(r));
              failAt = b.failure;
              promises.push(...b.commits.slice(b.split).map(commit));
              for (const r of await Promise.all(promises)) {
                if (!r.ok) continue;
                // A commit's writes apply as the store documents: the last write per id, in the order ids were first touched.
                const last = new Map<string, Op>();
                for (const o of r.ops) last.set(o.id, o);
                for (const o of last.values()) {
                  if (o.op === 'put') model.set(o.id, { id: o.id, v: o.v });
                  else model.delete(o.id);
                }
              }
              expect(s.all(W)).toEqual([...model.values()]);
              failAt = undefined;
              snapshotFailure = undefined;
              const end = Date.now() + 5_000;
              while (!s.health().writable) {
                if (Date.now() > end) throw new Error('the store did not resume');
                await new Promise((r) => setTimeout(r, 2));
              }
            }
          } finally {
            await s.close();
          }
          const again = await openStore({ dir });
          try {
            expect(again.all(W)).toEqual([...model.values()]);
          } finally {
            await again.close();
          }
        },
      ),
      runs(60),
    );
  }, 120_000);
});
