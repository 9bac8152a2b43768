/**
 * The store's central promise under real crashes: a child commits in a loop and is killed
 * with SIGKILL at a random moment (often mid-snapshot: its compaction threshold is tiny).
 * After every kill the state must be exactly a prefix of the commit sequence that includes
 * every commit the child saw resolve. The same directory is reused for every round, so each
 * round also restarts over a crashed predecessor's files and stale LOCK.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collection, openStore } from '../../src/store/index.js';
import { collect, removeTempDirs, spawnFixture, tempDir } from './helpers.js';

afterEach(removeTempDirs);

const ROUNDS = 16;
// Each round starts a fresh node + tsx child (~0.3 s idle, over 1 s on a loaded 2-core CI box):
// a generous limit so that load does not fail the test, while a real hang still does.
const TIMEOUT_MS = 120_000;
const PAD = 'p'.repeat(120);
/** The collection the child writes (fixtures/crash-writer.ts). */
const N = collection<{ i: number; pad: string }>('n');

function waitForReady(child: ReturnType<typeof spawnFixture>): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('utf8');
      const m = /^ready (\d+)\n/.exec(buf);
      if (m) {
        child.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.on('close', (code) => reject(new Error(`child exited (${code}) before it was ready`)));
  });
}

describe('crash safety', () => {
  it(
    `after SIGKILL at random moments (${ROUNDS} rounds) the state is a prefix holding every acknowledged commit`,
    async () => {
      const dir = await tempDir();
      let previousCount = 0;
      let sawSnapshot = false;
      const log: string[] = [];

      for (let round = 0; round < ROUNDS; round++) {
        const child = spawnFixture('crash-writer.ts', [dir, '4096', '8']);
        const done = collect(child);
        const start = await waitForReady(child).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${(await done).stderr}`);
        });
        expect(start).toBe(previousCount);
        const delay = Math.floor(Math.random() * 120);
        await new Promise((r) => setTimeout(r, delay));
        child.kill('SIGKILL');
        const result = await done;
        expect(result.signal, `child died on its own: ${result.stderr}`).toBe('SIGKILL');

        const acked = result.stdout
          .split('\n')
          .filter((l) => /^\d+$/.test(l))
          .map(Number);
        const maxAcked = acked.length ? Math.max(...acked) : -1;

        const store = await openStore({ dir });
        try {
          const values = store.all(N);
          const k = values.length;
          log.push(`round ${round}: delay ${delay} ms, acked up to ${maxAcked}, state holds ${k}`);
          if (process.env.CRASH_DEBUG) console.error(log.at(-1), new Date().toISOString());
          const context = log.join('\n');
          // exactly keys 0..k-1, in commit order, each with its own value
          values.forEach((v, idx) => {
            if (v.i !== idx || v.pad !== PAD || store.get(N, String(idx)) !== v) {
              throw new Error(`not a prefix at position ${idx}: ${JSON.stringify(v).slice(0, 80)}\n${context}`);
            }
          });
          expect(store.count(N), context).toBe(k);
          expect(maxAcked, `an acknowledged commit was lost\n${context}`).toBeLessThan(k);
          expect(k, context).toBeGreaterThanOrEqual(previousCount);
          previousCount = k;
        } finally {
          await store.close();
        }
        sawSnapshot ||= await fs.stat(path.join(dir, 'state.json')).then(
          () => true,
          () => false,
        );
      }
      expect(previousCount).toBeGreaterThan(0);
      expect(sawSnapshot).toBe(true);
    },
    TIMEOUT_MS,
  );
});
