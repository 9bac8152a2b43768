/**
 * The audit chain verified in pages from the store's history (src/audit/verify.ts): entries
 * that left memory are walked from the database, an edit of one is caught by the full check,
 * the routine check walks only what is new since its checkpoint yet still catches an edit of
 * the checkpoint's own entry, and an entry written during a walk waits for the next one.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, AUDIT_COLLECTION, auditId } from '../../src/audit/log.js';
import {
  AUDIT_CHECKPOINT,
  checkAuditSinceCheckpoint,
  checkFullAudit,
  exportAuditCsv,
  fullAuditCheck,
  readRecentAudit,
  verifyAuditChain,
} from '../../src/audit/verify.js';
import { openStore, type Store } from '../../src/store/index.js';
import { openPgStore } from '../../src/store/pg/index.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';

async function write(store: Store, n: number): Promise<void> {
  await store.commit((tx) => {
    for (let i = 0; i < n; i++)
      appendAudit(tx, { actor: 'system', action: 'request', subject: `w${i}`, details: { i }, at: 1_700_000_000_000 });
  });
}

async function exportToText(store: Store, pageSize: number) {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  const check = await exportAuditCsv(store, out, pageSize);
  return { check, text: Buffer.concat(chunks).toString('utf8') };
}

async function evictUpTo(store: Store, seq: number): Promise<void> {
  await store.commit((tx) => {
    for (let s = 1; s <= seq; s++) tx.evict(AUDIT_COLLECTION, auditId(s));
  });
}

describe.skipIf(!pgAvailable)(`the audit chain from history${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let url = '';
  let admin: pg.Client;
  beforeAll(async () => {
    url = await createTestDatabase('audit_history');
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
  });

  it('walks cold and hot entries in pages; the checkpoint check walks only the new ones; edits are caught', async () => {
    const { store } = await openPgStore({ url });
    try {
      await write(store, 25);
      await evictUpTo(store, 20);
      expect(store.count(AUDIT_COLLECTION)).toBe(5);

      const full = await verifyAuditChain(store, { from: 'start', pageSize: 4 });
      expect(full).toMatchObject({ ok: true, count: 25, walked: 25, from: 0 });
      expect((await readRecentAudit(store, 7)).map((e) => e.seq)).toEqual([19, 20, 21, 22, 23, 24, 25]);
      // Streamed in pages of 3 (9 pages), verified in the same walk: the header, then every entry in order.
      const exported = await exportToText(store, 3);
      expect(exported.check).toMatchObject({ ok: true, count: 25, walked: 25 });
      const lines = exported.text.trimEnd().split('\n');
      expect(lines[0]).toBe('seq,at,actor,action,subject,details,prevHash,hash');
      expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));

      // No checkpoint yet: the first routine check walks everything, then keeps one at the head.
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({ ok: true, count: 25, walked: 25 });
      expect(store.get(AUDIT_CHECKPOINT, 'checkpoint')?.seq).toBe(25);
      await write(store, 3);
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({ ok: true, count: 28, walked: 3, from: 25 });

      // An edit of an old entry, in the database: the routine check (past it) does not walk it; the full one catches it.
      await admin.query(
        `UPDATE store_records SET value = json_build_object('seq', 5, 'at', value->'at', 'actor', 'U0EVIL', 'action',
           value->'action', 'subject', value->'subject', 'details', value->'details', 'prevHash', value->'prevHash',
           'hash', value->'hash') WHERE collection = 'audit' AND id = $1`,
        [auditId(5)],
      );
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({ ok: true, walked: 0, since: expect.any(String) });
      // The daily job's check walks the whole chain: it catches the edit.
      expect(await checkFullAudit(store)).toMatchObject({ ok: false, seq: 5 });
      expect(await fullAuditCheck(store, 4)).toMatchObject({
        check: { ok: false, seq: 5, reason: 'entry 5 was altered (its hash does not match its content)' },
      });
      // The export still holds every entry, and says where the chain breaks.
      const broken = await exportToText(store, 4);
      expect(broken.check).toMatchObject({ ok: false, seq: 5 });
      expect(broken.text.trimEnd().split('\n')).toHaveLength(29);
      expect(broken.text).toContain('U0EVIL');
    } finally {
      await store.close();
    }
  });

  it("an edit of the checkpoint's own entry, or a removed one, fails the routine check", async () => {
    const db = await createTestDatabase('audit_checkpoint');
    const c = new pg.Client({ connectionString: db });
    await c.connect();
    let { store } = await openPgStore({ url: db });
    try {
      await write(store, 10);
      await checkAuditSinceCheckpoint(store);
      await evictUpTo(store, 10);
      await store.close();
      await c.query(
        `UPDATE store_records SET value = (regexp_replace(value::text, '"actor":"system"', '"actor":"U0EVIL"'))::json
          WHERE collection = 'audit' AND id = $1`,
        [auditId(10)],
      );
      store = (await openPgStore({ url: db })).store;
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({ ok: false, seq: 10 });
      await c.query('DELETE FROM store_records WHERE collection = $1 AND id = $2', ['audit', auditId(10)]);
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({
        ok: false,
        seq: 10,
        reason: 'entry 10 is missing',
      });
    } finally {
      await store.close();
      await c.end();
    }
  });

  it('an entry written while a walk runs is left for the next one', async () => {
    const db = await createTestDatabase('audit_walk');
    const { store } = await openPgStore({ url: db });
    try {
      await write(store, 6);
      await evictUpTo(store, 6);
      const walking = verifyAuditChain(store, { from: 'start', pageSize: 2 });
      void write(store, 2);
      expect(await walking).toMatchObject({ ok: true, count: 6, walked: 6 });
      expect(await verifyAuditChain(store)).toMatchObject({ ok: true, count: 8 });
    } finally {
      await store.close();
    }
  });
});

describe('the routine check on a store refusing writes', () => {
  it('still says the chain verifies: the checkpoint waits for the next check', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'audit-full-'));
    let refuse = false;
    const full = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const store = await openStore({
      dir,
      probeIntervalMs: 60_000,
      writeGate: (stage) => (refuse && stage !== 'cut' && stage !== 'dirsync' ? full() : undefined),
    });
    try {
      await write(store, 3);
      refuse = true;
      expect(await checkAuditSinceCheckpoint(store)).toMatchObject({ ok: true, count: 3, walked: 3 });
      expect(store.get(AUDIT_CHECKPOINT, 'checkpoint')).toBeUndefined();
      refuse = false;
    } finally {
      await store.close().catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
