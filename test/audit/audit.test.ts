/** Invariant 7: the hash-chained audit log verifies, detects tampering, and exports. */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { mkdtemp } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AUDIT_COLLECTION,
  appendAudit,
  auditCsv,
  auditId,
  hashAuditEntry,
  recentAudit,
  verifyAudit,
  type AuditEntry,
} from '../../src/audit/index.js';
import { openStore, type Store } from '../../src/store/index.js';

let dir: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function fresh(): Promise<Store> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'audit-test-'));
  store = await openStore({ dir });
  return store;
}

async function appendSome(s: Store, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    await s.commit((tx) =>
      appendAudit(tx, {
        actor: `U0USER${i}`,
        action: 'approve',
        subject: `req-${i}`,
        details: { amount: `${i}00.5`, note: 'a "quoted", note' },
        at: Date.UTC(2030, 0, 1, 0, i),
      }),
    );
  }
}

describe('audit log', () => {
  it('chains entries: seq, prevHash and a sha256 over canonical JSON', async () => {
    const s = await fresh();
    expect(verifyAudit(s)).toEqual({ ok: true, count: 0 });
    await appendSome(s, 3);
    const all = s.all<AuditEntry>(AUDIT_COLLECTION);
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(all[0]!.prevHash).toBe('0'.repeat(64));
    expect(all[1]!.prevHash).toBe(all[0]!.hash);
    expect(all[2]!.hash).toMatch(/^[0-9a-f]{64}$/);
    // Key order does not matter to the hash.
    const e = all[1]!;
    const reordered = {
      hash: e.hash,
      prevHash: e.prevHash,
      details: { note: e.details.note, amount: e.details.amount },
      subject: e.subject,
      action: e.action,
      actor: e.actor,
      at: e.at,
      seq: e.seq,
    };
    expect(hashAuditEntry(reordered)).toBe(e.hash);
    expect(verifyAudit(s)).toEqual({ ok: true, count: 3 });
    expect(recentAudit(s, 2).map((x) => x.seq)).toEqual([2, 3]);
    expect(recentAudit(s, 10)).toHaveLength(3);
  });

  it('an entry edited on disk between close and reopen is detected', async () => {
    const s = await fresh();
    await appendSome(s, 3);
    await s.close();
    store = undefined;
    const journal = path.join(dir!, 'journal.jsonl');
    const text = await readFile(journal, 'utf8');
    expect(text).toContain('"200.5"');
    await writeFile(journal, text.replace('"200.5"', '"900.5"'));
    store = await openStore({ dir: dir! });
    expect(verifyAudit(store)).toEqual({ ok: false, seq: 2, reason: expect.stringContaining('altered') });
  });

  it('an entry edited through the store (re-hashed but not re-linked) is detected', async () => {
    const s = await fresh();
    await appendSome(s, 3);
    await s.commit((tx) => {
      const e = tx.get<AuditEntry>(AUDIT_COLLECTION, auditId(2))!;
      const forged = { ...e, actor: 'U0MALLORY' };
      tx.put(AUDIT_COLLECTION, auditId(2), { ...forged, hash: hashAuditEntry(forged) });
    });
    expect(verifyAudit(s)).toMatchObject({ ok: false, seq: 3 });
  });

  it('a deleted entry is detected, in the middle and at the end', async () => {
    const s = await fresh();
    await appendSome(s, 4);
    await s.commit((tx) => tx.delete(AUDIT_COLLECTION, auditId(4)));
    expect(verifyAudit(s)).toMatchObject({ ok: false, reason: expect.stringContaining('removed') });
    await s.commit((tx) => tx.delete(AUDIT_COLLECTION, auditId(2)));
    expect(verifyAudit(s)).toMatchObject({ ok: false, seq: 2, reason: expect.stringContaining('missing') });
  });

  it('appends made in a commit that throws are not kept', async () => {
    const s = await fresh();
    await appendSome(s, 1);
    await expect(
      s.commit((tx) => {
        appendAudit(tx, { actor: 'U0X', action: 'approve', subject: 'x' });
        throw new Error('state change refused');
      }),
    ).rejects.toThrow('state change refused');
    await appendSome(s, 1);
    expect(verifyAudit(s)).toEqual({ ok: true, count: 2 });
  });

  it('exports every entry as CSV', async () => {
    const s = await fresh();
    await appendSome(s, 2);
    const lines = auditCsv(s).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('seq,at,actor,action,subject,details,prevHash,hash');
    const entries = s.all<AuditEntry>(AUDIT_COLLECTION);
    entries.forEach((e, i) => {
      expect(lines[i + 1]!.startsWith(`${e.seq},${e.at},${e.actor},approve,${e.subject},`)).toBe(true);
      expect(lines[i + 1]!.endsWith(`,${e.prevHash},${e.hash}`)).toBe(true);
    });
    // details: canonical JSON, CSV-quoted (its commas and quotes must not break the row).
    expect(lines[1]).toContain('"{""amount"":""100.5"",""note"":""a \\""quoted\\"", note""}"');
  });
});
