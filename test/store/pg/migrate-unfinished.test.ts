/**
 * A database holding an unfinished store:migrate copy is not led on: the app refuses to start on
 * it (nothing posted, nothing written), the copy's progress record outlives the last batch until
 * the read-back check has passed, and a resume is refused where it would mix sources or records.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../../src/audit/log.js';
import { progressPrinter } from '../../../src/migration/cli.js';
import { migrateToPostgres } from '../../../src/migration/to-postgres.js';
import { collection, openStore } from '../../../src/store/index.js';
import { openPgStore } from '../../../src/store/pg/index.js';
import { nodeArgs } from '../../helpers/built.js';
import { startFakeSlack } from '../../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';
import { FINANCE_GROUP, startTestApp, USERS } from '../../helpers/treasury-app.js';
import { collect, removeTempDirs, repoRoot, tempDir } from '../helpers.js';

const ITEMS = collection<{ n: number }>('items');
const UNFINISHED =
  /unfinished store:migrate copy: run the same command again to finish; the app will not start on this database until then/;

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

/** A copy stopped once `at` records are committed. */
async function interrupted(dir: string, url: string, at: number): Promise<void> {
  const stop = new Error('killed');
  await expect(
    migrateToPostgres({
      from: dir,
      url,
      batch: 10,
      onProgress: (p) => {
        if (p.done >= at) throw stop;
      },
    }),
  ).rejects.toBe(stop);
}

describe.skipIf(!pgAvailable)(`an unfinished copy${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  afterAll(removeTempDirs);

  it('the app refuses to start on a database holding one: nothing posted, nothing written', async () => {
    const url = await createTestDatabase('unfinished');
    await interrupted(await embedded(), url, 20);
    const before = await held(url);
    expect(before.store_migration).toBe(1);
    const fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    try {
      await expect(startTestApp({ env: { DATABASE_URL: url }, fake, sandbox: { seed: false } })).rejects.toThrow(
        UNFINISHED,
      );
      expect(fake.calls('chat.postMessage')).toEqual([]);
      expect(fake.calls('chat.postEphemeral')).toEqual([]);
      expect(await held(url)).toEqual(before);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('keeps the record past the last batch until the check passes; the app starts only then', async () => {
    const url = await createTestDatabase('unfinished');
    const dir = await embedded();
    // Stopped after the last batch, before the check: still unfinished.
    await interrupted(dir, url, 51);
    expect((await held(url)).store_migration).toBe(1);
    await expect(openPgStore({ url })).rejects.toThrow(UNFINISHED);
    const r = await migrateToPostgres({ from: dir, url, batch: 10 });
    expect(r.resumedAt).toBe(51);
    expect(await held(url)).toEqual({ items: 25, audit: 25, audit_head: 1 });
    const { store } = await openPgStore({ url });
    await store.close();
  });

  it('refuses to resume a copy of another source, or beside records that are not the copy', async () => {
    const url = await createTestDatabase('unfinished');
    await interrupted(await embedded(), url, 20);
    await expect(migrateToPostgres({ from: await embedded(), url, batch: 10 })).rejects.toThrow(
      /the database holds an unfinished copy of .+, not of .+: finish that one, or start again on an empty database/,
    );

    const other = await createTestDatabase('unfinished');
    const dir = await embedded();
    await interrupted(dir, other, 20);
    const { store } = await openPgStore({ url: other, unfinishedCopy: 'open' });
    await store.commit((tx) => tx.put(ITEMS, 'stray', { n: -1 }));
    await store.close();
    await expect(migrateToPostgres({ from: dir, url: other, batch: 10 })).rejects.toThrow(
      /the database holds 21 records besides the unfinished copy's 20: start again on an empty database/,
    );
  });

  it('the command says how far it got and not to start the app; a resume is announced once', async () => {
    const url = await createTestDatabase('unfinished');
    await interrupted(await embedded(), url, 20);
    const child = spawn(process.execPath, [...nodeArgs('src/migration/cli.ts'), '--from', await embedded()], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Refused before any batch of this run: no claim of records copied by it.
    const r = await collect(child);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Not migrated: the database holds an unfinished copy of /);
    expect(r.stderr).not.toMatch(/records copied/);

    // A copy that fails after a batch went in (the database refuses a record of the second).
    const failing = await createTestDatabase('unfinished');
    await (await openPgStore({ url: failing })).store.close();
    const db = new pg.Client({ connectionString: failing });
    await db.connect();
    await db.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = 'i15' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`);
    await db.query('CREATE TRIGGER refuse BEFORE INSERT ON store_records FOR EACH ROW EXECUTE FUNCTION refuse()');
    await db.end();
    const cut = spawn(
      process.execPath,
      [...nodeArgs('src/migration/cli.ts'), '--from', await embedded(), '--batch', '10'],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: failing }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const c = await collect(cut);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(
      '10 of 51 records copied; run the same command again to resume; do not start the app on this database.',
    );

    const lines: string[] = [];
    const print = progressPrinter((l) => lines.push(l));
    for (const done of [1010, 1020, 1030, 6000]) print({ done, total: 100_000, resumedAt: 1000 });
    expect(lines.filter((l) => l.startsWith('Resuming an interrupted copy'))).toHaveLength(1);
  }, 60_000);
});
