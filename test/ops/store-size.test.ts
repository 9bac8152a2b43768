/**
 * The store's size as operators see it: `treasury_store_records` on /metrics follows the
 * records by collection (scraped over HTTP from the running app), and the embedded store's
 * ceiling watch tells the admins once, by DM and in the audit log, when the records pass 80%
 * of the ceiling (lowered here to a few hundred records), not again while they stay there (a
 * restart included), and again after they fell under 70% and crossed once more. With
 * PostgreSQL there is no ceiling: the watch is not scheduled, and the gauge is served all the same.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { collection } from '../../src/store/index.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { freePort, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { repoRoot } from '../store/helpers.js';

const FILLER = collection<{ n: number }>('test_filler');
const CEILING = 400;
const JOB = 'capacity.embedded-store';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** `treasury_store_records{collection="…"}` series of one scrape. */
async function storeRecords(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^treasury_store_records\{collection="([^"]+)"\} (\d+)$/gm))
    out.set(m[1]!, Number(m[2]));
  return out;
}

async function setFillers(app: TestApp, n: number): Promise<void> {
  await app.app.deps.store.commit((tx) => {
    for (const r of tx.all(FILLER)) tx.delete(FILLER, String(r.n));
    for (let i = 0; i < n; i++) tx.put(FILLER, String(i), { n: i });
  });
}

describe('treasury_store_records', () => {
  it('counts the records of each collection, following writes and deletes', async () => {
    t = await startTestApp({ env: { METRICS_PORT: String(await freePort()) } });
    const url = t.app.metricsUrl!;
    expect((await storeRecords(url)).get('test_filler')).toBeUndefined();
    await setFillers(t, 7);
    let m = await storeRecords(url);
    expect(m.get('test_filler')).toBe(7);
    expect(m.get('job_runs')).toBeGreaterThan(0);
    // Only the filler is compared exactly: start-up jobs may commit between the scrape and a read of the store.
    await setFillers(t, 5);
    m = await storeRecords(url);
    expect(m.get('test_filler')).toBe(5);
  });
});

describe('the embedded store ceiling watch', () => {
  it('tells the admins once at 80%, audited, not again after a restart, and again after falling under 70%', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'store-ceiling-'));
    try {
      t = await startTestApp({ dataDir, storeCeiling: CEILING });
      const app = t;
      const dms = () =>
        app.fake.channel(app.fake.dmChannel(USERS.erin)).filter((m) => /PostgreSQL/.test(visibleText(m)));
      const warnings = () => app.app.deps.store.find(AUDIT_COLLECTION, (e) => e.action === 'store_ceiling_warning');
      const fillTo = async (records: number) =>
        setFillers(app, Math.max(0, records - (app.app.deps.store.stats().records - app.app.deps.store.count(FILLER))));

      // Under 80%: nothing said.
      await fillTo(CEILING * 0.8 - 10);
      await app.app.deps.scheduler.runNow(JOB);
      expect(warnings()).toHaveLength(0);

      // Past 80%: one DM to the admin, status first, pointing to PostgreSQL; one audit entry.
      await fillTo(CEILING * 0.8 + 5);
      await app.app.deps.scheduler.runNow(JOB);
      const dm = await until('the warning DM', () => dms()[0]);
      expect(visibleText(dm)).toMatch(
        /^:warning: The app's records have reached 8\d% of what its built-in storage holds well \(3\d\d of 400\)\..*move to PostgreSQL/s,
      );
      // Names a guide and a section that exist, not a file path.
      expect(visibleText(dm)).toMatch(/see “Moving from the embedded store” in the “Run two replicas” guide\.$/);
      expect(visibleText(dm)).not.toMatch(/docs\/|\.md/);
      const guide = readFileSync(join(repoRoot, 'docs/guides/replicas.md'), 'utf8');
      expect(guide).toMatch(/^# Run two replicas$/m);
      expect(guide).toMatch(/^## Moving from the embedded store$/m);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toMatchObject({ actor: 'system', subject: 'store', details: { ceiling: CEILING } });
      // Still past it, at the next run: nothing more.
      await fillTo(CEILING * 0.9);
      await app.app.deps.scheduler.runNow(JOB);
      await app.app.deps.outbox.drain(5_000);
      expect(dms()).toHaveLength(1);
      expect(warnings()).toHaveLength(1);
    } finally {
      await t?.stop();
      t = undefined;
    }
    try {
      // Restarted on the same data: the warning was said (the job runs at start too).
      t = await startTestApp({ dataDir, storeCeiling: CEILING });
      const app = t;
      const dms = () =>
        app.fake.channel(app.fake.dmChannel(USERS.erin)).filter((m) => /PostgreSQL/.test(visibleText(m)));
      const warnings = () => app.app.deps.store.find(AUDIT_COLLECTION, (e) => e.action === 'store_ceiling_warning');
      await app.app.deps.scheduler.runNow(JOB);
      await app.app.deps.outbox.drain(5_000);
      expect(dms()).toHaveLength(0);
      expect(warnings()).toHaveLength(1);
      // Pruned under 70%, then past 80% again: said once more.
      await setFillers(app, 0);
      await app.app.deps.scheduler.runNow(JOB);
      await setFillers(app, CEILING);
      await app.app.deps.scheduler.runNow(JOB);
      await until('the second warning DM', () => dms()[0]);
      expect(warnings()).toHaveLength(2);
    } finally {
      await t?.stop();
      t = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!pgAvailable)(`with PostgreSQL${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  it('has no ceiling watch, and serves treasury_store_records', async () => {
    const url = await createTestDatabase('store_size');
    t = await startTestApp({ env: { DATABASE_URL: url, METRICS_PORT: String(await freePort()) }, storeCeiling: 1 });
    expect(t.app.deps.scheduler.names()).not.toContain(JOB);
    expect(t.app.deps.scheduler.names()).toContain('store.prune');
    await setFillers(t, 3);
    expect((await storeRecords(t.app.metricsUrl!)).get('test_filler')).toBe(3);
  }, 60_000);
});
