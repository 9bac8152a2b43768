/**
 * `npm run store:migrate`: an embedded store with an audit chain is copied into PostgreSQL by
 * the real command (a child process), counts and chain verified; an unempty database and a
 * broken source chain are refused, copying nothing; a database whose lock a replica holds is
 * waited for as long as --wait says, with a word on what it waits for.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, AUDIT_COLLECTION, verifyAudit } from '../../../src/audit/log.js';
import { collection, openStore } from '../../../src/store/index.js';
import { openPgStore } from '../../../src/store/pg/index.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';
import { collect, removeTempDirs, repoRoot, tempDir } from '../helpers.js';
import { nodeArgs } from '../../helpers/built.js';

const ITEMS = collection<{ n: number }>('items');

function migrate(args: string[], url: string) {
  const child = spawn(process.execPath, [...nodeArgs('src/migration/cli.ts'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}

async function embedded(entries: number): Promise<string> {
  const dir = await tempDir();
  const s = await openStore({ dir });
  for (let i = 0; i < entries; i++) {
    await s.commit((tx) => {
      tx.put(ITEMS, `i${i}`, { n: i });
      appendAudit(tx, { actor: 'U0ALICE', action: 'request', subject: `i${i}`, details: { i } });
    });
  }
  await s.commit((tx) => tx.delete(ITEMS, 'i0'));
  await s.close();
  return dir;
}

describe.skipIf(!pgAvailable)(`store:migrate${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  afterAll(removeTempDirs);
  let url = '';
  beforeAll(async () => {
    url = await createTestDatabase('migrate');
  }, 120_000);

  it('copies every record in order and verifies counts and the audit chain', async () => {
    const dir = await embedded(25);
    const r = await migrate(['--from', dir], url);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Copied 50 records/);
    expect(r.stdout).toMatch(/items: 24/);
    expect(r.stdout).toMatch(/audit log: 25 entries, hash chain verified/);
    expect(r.stdout).not.toMatch(/postgres@|password/);
    const { store } = await openPgStore({ url });
    try {
      expect(store.all(ITEMS).map((v) => v.n)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      expect(verifyAudit(store)).toEqual({ ok: true, count: 25 });
    } finally {
      await store.close();
    }

    // a second copy into the same, now unempty, database is refused
    const again = await migrate(['--from', dir], url);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds 50 records/);
  });

  it('refuses a source whose audit chain does not verify, copying nothing', async () => {
    const empty = await createTestDatabase('migrate');
    const dir = await embedded(3);
    const s = await openStore({ dir });
    const second = s.all(AUDIT_COLLECTION)[1]!;
    await s.commit((tx) => tx.put(AUDIT_COLLECTION, '000000000002', { ...second, subject: 'altered' }));
    await s.close();
    const r = await migrate(['--from', dir], empty);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/audit log does not verify \(entry 2 was altered/);
    const c = new pg.Client({ connectionString: empty });
    await c.connect();
    const tables = await c.query("SELECT to_regclass('store_records') AS t");
    await c.end();
    expect(tables.rows[0].t).toBeNull();
  });

  it('while a replica holds the lock: says what it waits for, and gives up after --wait, copying nothing', async () => {
    const held = await createTestDatabase('migrate');
    const replica = await openPgStore({ url: held });
    try {
      const dir = await embedded(2);
      const started = Date.now();
      const r = await migrate(['--from', dir, '--wait', '2'], held);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /Waiting for postgres:\/\/.*a replica holds its lock \(stop every replica\)\. Giving up after 2 s/,
      );
      expect(r.stderr).toMatch(/gave up after 2 s waiting for .* and its lock; nothing was copied/);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(replica.store.stats().records).toBe(0);
    } finally {
      await replica.store.close();
    }
    expect((await migrate(['--from', '/nonexistent', '--wait', 'soon'], held)).stderr).toMatch(
      /--wait must be a number of seconds/,
    );
  }, 30_000);

  it('says how to use it without --from', async () => {
    const r = await migrate([], url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--from is required/);
  });
});
