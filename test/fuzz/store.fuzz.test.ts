/**
 * The store against a model under random write failures: bursts of commits (one group
 * commit each), any of which may hit a refused write or a failed fsync, with snapshots
 * taken often. After every burst the store holds exactly the commits that resolved, in
 * order (a Map model), and so does a fresh open of the directory.
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
  fc.record({ op: fc.constant('put' as const), id: fc.constantFrom('a', 'b', 'c', 'd', '1', '__proto__'), v: fc.integer() }),
  fc.record({ op: fc.constant('del' as const), id: fc.constantFrom('a', 'b', 'c', 'd', '1', '__proto__') }),
);
const burst = fc.record({
  commits: fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
  failure: fc.constantFrom(undefined, undefined, 'write' as const, 'sync' as const),
});

describe('store under random write failures', () => {
  it('equals the model of resolved commits, in memory and after reopening', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(burst, { minLength: 1, maxLength: 8 }), fc.constantFrom(150, 100_000), async (bursts, compactAfterBytes) => {
        const dir = await tempDir();
        let failAt: 'write' | 'sync' | undefined;
        const gate = (stage: string) => (failAt && stage === failAt ? Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }) : undefined);
        const s = await openStore({ dir, compactAfterBytes, probeIntervalMs: 2, writeGate: gate });
        const model = new Map<string, unknown>();
        try {
          for (const b of bursts) {
            failAt = b.failure;
            const promises = b.commits.map((ops) =>
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
                ),
            );
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
      }),
      runs(60),
    );
  }, 120_000);
});
