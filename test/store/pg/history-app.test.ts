/**
 * A withdrawal closed long ago, through the whole app on PostgreSQL (signed Slack requests, the
 * fake Slack Web API, the embedded sandbox): once the daily `store.prune` job has moved it and its
 * audit entries out of memory, the leader's start no longer loads them, yet `/treasury withdrawal
 * <ref>` still tells its story and the audit export and chain check still hold it: after a
 * restart, after a takeover by a standby, and after a migration from the embedded store. A
 * completed payment leaves too, folded into the paid summary, and `/tx export` still joins it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION, auditHead } from '../../../src/audit/log.js';
import { AUDIT_CHECKPOINT } from '../../../src/audit/verify.js';
import { migrateToPostgres } from '../../../src/migration/to-postgres.js';
import { COLLECTIONS as OUTBOX } from '../../../src/outbox/types.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../../../src/withdrawals/index.js';
import { PAID_DESTINATIONS } from '../../../src/withdrawals/paid-summary.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../../helpers/pg.js';
import {
  CHANNELS,
  FINANCE_GROUP,
  freePort,
  startTestApp,
  type TestApp,
  USERS,
  visibleText,
} from '../../helpers/treasury-app.js';
import { until } from '../../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const DAY = 86_400_000;

let offset = 0;
const now = () => Date.now() + offset;
const apps: TestApp[] = [];
let fake: FakeSlack;
const dirs: string[] = [];

async function start(env: Record<string, string>, extra: { dataDir?: string; port?: number } = {}): Promise<TestApp> {
  const a = await startTestApp({
    env: { ...env, ...(extra.port ? { PORT: String(extra.port) } : {}) },
    fake,
    now,
    ...(extra.dataDir ? { dataDir: extra.dataDir } : {}),
    sandbox: { seed: false, webhook: { confirmAfterMs: 20, retryBaseMs: 20 } },
  });
  apps.push(a);
  a.app.sandbox?.setBalance(CLIENT, 'USDT', 'BSC', '12500');
  return a;
}

async function stop(a: TestApp): Promise<void> {
  apps.splice(apps.indexOf(a), 1);
  await a.stop();
}

async function say(a: TestApp, text: string, user: string = USERS.erin): Promise<string> {
  const { responseUrl } = await a.command('/treasury', text, user);
  return visibleText((await a.replies(responseUrl))[0]!);
}

/** A request that expires unapproved (closed), then 121 days pass and the daily job runs. */
async function closeLongAgo(a: TestApp): Promise<WithdrawalRequest> {
  const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT} rent`, USERS.alice);
  await a.replies(responseUrl);
  const r = a.app.deps.withdrawals.list()[0]!;
  offset += 3 * 3_600_000; // past the test policy's expires_after (2h)
  await a.app.deps.scheduler.runNow('withdrawals.expire-and-remind');
  expect(a.app.deps.withdrawals.get(r.id)?.state).toBe('expired');
  return r;
}

/** What the last run of the daily job says it moved out of memory, per collection. */
function movedByJob(a: TestApp): Record<string, number> {
  const runs = a
    .logs()
    .split('\n')
    .filter((l) => l.includes('pruned records older than the retention period'));
  return JSON.parse(runs.at(-1)!).history;
}

async function moveHistory(a: TestApp, r: WithdrawalRequest): Promise<void> {
  const store = a.app.deps.store;
  const card = `withdrawal:${r.id}`;
  expect(store.get(OUTBOX.messages, card)?.ts).toBeDefined();
  offset += 121 * DAY;
  await a.app.deps.scheduler.runNow('store.prune');
  expect(movedByJob(a).withdrawals).toBe(1);
  expect(movedByJob(a).audit).toBeGreaterThanOrEqual(2);
  // The card's message records leave with it (they only served edits of that card), kept in the database.
  expect(movedByJob(a)['withdrawal cards']).toBeGreaterThanOrEqual(1);
  expect(store.get(OUTBOX.messages, card)).toBeUndefined();
  expect((await store.history.get(OUTBOX.messages, card))?.ts).toBeDefined();
  // The job walked the whole chain (not from a checkpoint) and logged the head's hash.
  const full = a
    .logs()
    .split('\n')
    .filter((l) => l.includes('the whole audit log verifies'))
    .map((l) => JSON.parse(l));
  expect(full.at(-1)).toMatchObject({ entries: auditHead(store)?.seq, headHash: auditHead(store)?.hash });
  expect(store.get(WITHDRAWALS, r.id)).toBeUndefined();
  expect(store.find(AUDIT_COLLECTION, (e) => e.subject === r.id)).toEqual([]);
}

/** What every replica must still say of it, whatever it loaded at start. */
async function expectFound(a: TestApp, r: WithdrawalRequest): Promise<void> {
  const story = await say(a, `withdrawal ${r.merchantReference}`);
  expect(story).toMatch(/UTC · Requested by <@U0ALICE01>: 50\.00 USDT on BSC to `0x2{40}`/);
  expect(story).toMatch(/UTC · ⌛ Expired/);
  expect(story).toContain(`Merchant reference \`${r.merchantReference}\``);
  // The card's short reference (a prefix) finds it too.
  expect(await say(a, `withdrawal ${r.merchantReference.slice(0, 8).toUpperCase()}`)).toMatch(/⌛ Expired/);

  // After the daily job's full check, the routine check covers only what is new, and says so.
  expect(await say(a, 'audit')).toMatch(
    /:white_check_mark: \d+ new entr(y|ies) since \d{4}-\d\d-\d\d \d\d:\d\d UTC verified \(a full check: `\/treasury audit export`\)\./,
  );
  const before = a.fake.files().length;
  const completed = () => a.fake.calls('files.completeUploadExternal');
  const uploads = completed().length;
  await say(a, 'audit export');
  const file = await until('the audit CSV', () =>
    a.fake
      .files()
      .slice(before)
      .find((f) => f.name.startsWith('audit-')),
  );
  const rows = file.text.split(/\r?\n/).filter((l) => l.includes(`,${r.id},`));
  expect(rows.map((l) => l.split(',')[3])).toEqual(['request', 'expire']);
  // The file's bytes arrive before the upload is completed with its comment (other uploads, the digest's chart, may come between).
  const comment = await until('the upload completed', () =>
    completed()
      .slice(uploads)
      .map((c) => JSON.stringify(c.args))
      .find((t) => t.includes('Audit log')),
  );
  expect(comment, String(comment)).toMatch(/Audit log: \d+ entries, hash chain verified\./);
}

describe.skipIf(!pgAvailable)(
  `history through the app on PostgreSQL${pgSkipReason ? ` (${pgSkipReason})` : ''}`,
  () => {
    beforeAll(async () => {
      fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    });
    afterEach(async () => {
      for (const a of apps.splice(0).reverse()) await a.stop().catch(() => {});
      offset = 0;
    });
    afterAll(async () => {
      await fake?.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('a withdrawal closed long ago is found, exported and verified after a restart and a takeover', async () => {
      const env = { DATABASE_URL: await createTestDatabase('history_app') };
      const a = await start(env);
      const r = await closeLongAgo(a);
      await moveHistory(a, r);
      await expectFound(a, r);
      // The daily job verified the chain and moved its checkpoint: the next check walks only what is new.
      expect(a.app.deps.store.get(AUDIT_CHECKPOINT, 'checkpoint')?.seq).toBeGreaterThan(0);

      // Restart: the leader loads the hot set only.
      await stop(a);
      const b = await start(env);
      expect(b.app.deps.store.get(WITHDRAWALS, r.id)).toBeUndefined();
      expect(b.app.deps.store.count(WITHDRAWALS)).toBe(0);
      expect(b.app.deps.store.find(AUDIT_COLLECTION, (e) => e.subject === r.id)).toEqual([]);
      await expectFound(b, r);

      // Takeover: a standby waiting for the lead takes over when the leader stops.
      const port = await freePort();
      const cStarting = start(env, { port });
      await new Promise((res) => setTimeout(res, 500));
      await stop(b);
      const c = await cStarting;
      expect(c.app.deps.store.count(WITHDRAWALS)).toBe(0);
      await expectFound(c, r);
    }, 120_000);

    it('a payment completed long ago leaves memory, still counts as paid, and exports join it', async () => {
      const a = await start({ DATABASE_URL: await createTestDatabase('history_export') });
      const { responseUrl } = await a.command('/withdraw', `50 USDT BSC ${DEST} ${CLIENT} rent`, USERS.alice);
      await a.replies(responseUrl);
      const r = a.app.deps.withdrawals.list()[0]!;
      const card = await until('the card', () => a.fake.channel(CHANNELS.approvals)[0]);
      await a.click(
        USERS.carol,
        { actionId: 'wd_approve', value: r.id },
        { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
      );
      await until('completed', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
      offset += 121 * DAY;
      await a.app.deps.scheduler.runNow('store.prune');
      expect(movedByJob(a).withdrawals).toBe(1);
      expect(a.app.deps.withdrawals.get(r.id)).toBeUndefined();
      // Folded into the paid summary by the commit that took it out: the destination was paid.
      expect(a.app.deps.store.all(PAID_DESTINATIONS).map((d) => d.amounts)).toEqual([{ USDT: '50' }]);
      expect(await say(a, `withdrawal ${r.merchantReference}`)).toContain('✅ The wallet service accepted it');

      const before = a.fake.files().length;
      await a.command('/tx', 'export', USERS.viewer);
      const file = await until('the export', () => a.fake.files().slice(before)[0], 15_000);
      const [head, ...rows] = file.text.split(/\r?\n/).filter(Boolean);
      const cols = head!.split(',');
      const row = rows
        .map((l) => l.split(','))
        .find((c) => c[cols.indexOf('merchantReference')] === r.merchantReference);
      expect(row, file.text).toBeDefined();
      expect(row![cols.indexOf('note')]).toBe('rent');
      expect(row![cols.indexOf('client')]).toBe(CLIENT);
      expect(row![cols.indexOf('approvers')]).not.toBe('');

      // A new request to the same destination: not "never paid before" (the summary says it was).
      // (Read afresh after the clock's jump: the sanctions list and the prices.)
      await a.app.deps.scheduler.runNow('screening.refresh');
      await a.app.deps.scheduler.runNow('prices.refresh');
      const again = await a.command('/withdraw', `60 USDT BSC ${DEST} ${CLIENT} rent again`, USERS.alice);
      const answer = visibleText((await a.replies(again.responseUrl))[0]!);
      const next = a.app.deps.withdrawals.list().find((x) => x.id !== r.id);
      expect(next, answer).toBeDefined();
      expect(next!.allowlist.neverPaidBefore).toBe(false);
    }, 60_000);

    it('a prefix naming more requests than history lists says "or more"', async () => {
      const a = await start({ DATABASE_URL: await createTestDatabase('history_prefix') });
      const r = await closeLongAgo(a);
      const store = a.app.deps.store;
      await store.commit((tx) => {
        for (let i = 0; i < 120; i++) {
          const id = `bulk${String(i).padStart(3, '0')}`;
          tx.put(WITHDRAWALS, id, { ...r, id, merchantReference: `BULKREF-${id}` });
          tx.evict(WITHDRAWALS, id);
        }
      });
      expect(await say(a, 'withdrawal BULKREF-')).toMatch(
        /^:mag: 100 or more requests have a reference starting with “BULKREF-”/,
      );
      expect(await say(a, 'withdrawal BULKREF-bulk11')).toMatch(/^:mag: 10 requests have a reference starting with/);
    }, 60_000);

    it('after a migration from the embedded store, the same: moved out of memory, still found', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'history-migrate-'));
      dirs.push(dataDir);
      const embedded = await start({}, { dataDir });
      const r = await closeLongAgo(embedded);
      // The embedded store keeps everything in memory: the job moves nothing out of it.
      offset += 121 * DAY;
      await embedded.app.deps.scheduler.runNow('store.prune');
      expect(embedded.app.deps.store.get(WITHDRAWALS, r.id)?.state).toBe('expired');
      await expectFound(embedded, r);
      await stop(embedded);

      const url = await createTestDatabase('history_migrated');
      await migrateToPostgres({ from: dataDir, url });
      const pgApp = await start({ DATABASE_URL: url });
      expect(pgApp.app.deps.store.get(WITHDRAWALS, r.id)?.state).toBe('expired');
      await pgApp.app.deps.scheduler.runNow('store.prune');
      expect(pgApp.app.deps.store.get(WITHDRAWALS, r.id)).toBeUndefined();
      await expectFound(pgApp, r);
      await stop(pgApp);
      const again = await start({ DATABASE_URL: url });
      expect(again.app.deps.store.count(WITHDRAWALS)).toBe(0);
      await expectFound(again, r);
    }, 120_000);
  },
);
