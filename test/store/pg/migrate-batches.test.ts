/**
 * The migration moves history in batches, with progress: every batch is one commit that also
 * records how far the copy got, so a copy stopped half-way resumes after its last commit when
 * run again on the same, unchanged source (and is refused on a source that changed since);
 * the command prints its progress.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { appendAudit, verifyAudit } from '../../../src/audit/log.js';
import { migrateToPostgres, type MigrationProgress } from '../../../src/migration/to-postgres.js';
import { collection, openStore } from '../../../src/store/index.js';
import { openPgStore } from '../../../src/store/pg/index.js';
import { nodeArgs } from '../../helpers/built.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';
import { collect, removeTempDirs, repoRoot, tempDir } from '../helpers.js';

const ITEMS = collection<{ n: number }>('items');

/** 25 items, each with its audit entry, and the chain's head: 51 records. */
async function embedded(): Promise<string> {
  const dir = await tempDir();
  const s = await openStore({ dir });
  for (let i = 0; i < 25; i++)
    await s.commit((tx) => {
      tx.put(ITEMS, `i${i}`, { n: i });
      appendAudit(tx, { actor: 'U0ALICE', action: 'request', subject: `i${i}`, details: { i } });
    });
  await s.close();
  return dir;
}

async function held(url: string): Promise<Record<string, number>> {
  const { store } = await openPgStore({ url, unfinishedCopy: 'open' });
  try {
    return store.counts();
  } finally {
    await store.close();
  }
}

describe.skipIf(!pgAvailable)(`store:migrate in batches${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  afterAll(removeTempDirs);

  it('commits batch by batch, reporting each, and leaves exactly the source', async () => {
    const url = await createTestDatabase('batches');
    const dir = await embedded();
    const seen: MigrationProgress[] = [];
    const r = await migrateToPostgres({ from: dir, url, batch: 7, onProgress: (p) => seen.push(p) });
    expect(r).toMatchObject({ records: 51, auditEntries: 25, resumedAt: 0 });
    expect(seen.map((p) => p.done)).toEqual([7, 14, 21, 28, 35, 42, 49, 51]);
    expect(seen.every((p) => p.total === 51 && p.resumedAt === 0)).toBe(true);
    // No trace of the progress record once done.
    expect(await held(url)).toEqual({ items: 25, audit: 25, audit_head: 1 });
  });

  it('resumes an interrupted copy after its last commit; refuses one whose source changed since', async () => {
    const url = await createTestDatabase('batches');
    const dir = await embedded();
    const stop = new Error('killed half-way');
    await expect(
      migrateToPostgres({
        from: dir,
        url,
        batch: 10,
        onProgress: (p) => {
          if (p.done >= 30) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    // Three batches are in, with how far the copy got.
    const partial = await held(url);
    expect(partial.store_migration).toBe(1);
    expect(Object.values(partial).reduce((a, b) => a + b, 0)).toBe(31);

    const seen: MigrationProgress[] = [];
    const r = await migrateToPostgres({ from: dir, url, batch: 10, onProgress: (p) => seen.push(p) });
    expect(r.resumedAt).toBe(30);
    expect(seen.map((p) => p.done)).toEqual([40, 50, 51]);
    expect(await held(url)).toEqual({ items: 25, audit: 25, audit_head: 1 });
    const { store } = await openPgStore({ url });
    try {
      expect(store.all(ITEMS).map((v) => v.n)).toEqual(Array.from({ length: 25 }, (_, i) => i));
      expect(verifyAudit(store)).toEqual({ ok: true, count: 25 });
    } finally {
      await store.close();
    }

    // Interrupted, then the app wrote to the source: the copy is not resumed.
    const other = await createTestDatabase('batches');
    await expect(
      migrateToPostgres({
        from: dir,
        url: other,
        batch: 10,
        onProgress: () => {
          throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const s = await openStore({ dir });
    await s.commit((tx) => tx.put(ITEMS, 'late', { n: 99 }));
    await s.close();
    await expect(migrateToPostgres({ from: dir, url: other, batch: 10 })).rejects.toThrow(
      /the source changed since the interrupted copy/,
    );
  });

  it('the command prints its progress', async () => {
    const url = await createTestDatabase('batches');
    const dir = await embedded();
    const child = spawn(process.execPath, [...nodeArgs('src/migration/cli.ts'), '--from', dir, '--batch', '10'], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = await collect(child);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        'Copied 10 of 51 records (19%)',
        'Copied 20 of 51 records (39%)',
        'Copied 30 of 51 records (58%)',
        'Copied 40 of 51 records (78%)',
        'Copied 50 of 51 records (98%)',
        'Copied 51 of 51 records (100%)',
        'Copied 51 records from',
      ].join('\n'),
    );
    const bad = spawn(process.execPath, [...nodeArgs('src/migration/cli.ts'), '--from', dir, '--batch', '0'], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const b = await collect(bad);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--batch must be a whole number of records/);
  }, 60_000);
});
