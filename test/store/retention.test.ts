/**
 * Retention through the running app and its real store: deposits from the sandbox become
 * alerts, events and delivered messages; 40 days later `store.prune` deletes those, keeps a
 * recent alert, the audit log, the withdrawal request and a message never delivered, compacts,
 * and what it did survives a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/types.js';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { effectiveRetentionDays, Retention, WEBHOOK_RETRY_WINDOW_DAYS } from '../../src/jobs/retention.js';
import { createLogger } from '../../src/log.js';
import { COLLECTIONS as OUTBOX } from '../../src/outbox/types.js';
import { parsePolicy } from '../../src/policy/load.js';
import { openStore } from '../../src/store/index.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { Writable } from 'node:stream';
import { fixedPolicy } from '../../src/policy/source.js';
import { testRenderer } from '../helpers/renderers.js';

const DAY = 86_400_000;
let t: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('retention', () => {
  it('prunes old alerts, events and delivered messages; keeps audit, requests, recent alerts and undelivered messages', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'retention-'));
    dirs.push(dataDir);
    const clock = { offset: 0 };
    const now = () => Date.now() + clock.offset;
    t = await startTestApp({
      dataDir,
      now,
      policy: parsePolicy(`${TEST_POLICY_YAML}\nretention: { days: 30 }\n`),
      sandbox: { seed: false, webhook: { confirmAfterMs: 50, retryBaseMs: 50 } },
    });
    const app = t.app;
    const store = app.deps.store;
    const client = 'retention@client.example';
    app.sandbox!.setBalance(client, 'USDT', 'BSC', '1000');

    // Two old deposits, each an alert with its events and delivered messages.
    for (const amount of ['101', '102']) {
      await app.sandbox!.deposit({ to: client, amount, currency: 'USDT', network: 'BSC' });
    }
    await until('two alerts', () => store.count(ALERT_COLLECTIONS.alerts) >= 2);
    // A withdrawal request (and its audit entries), and a message that can never be delivered.
    const r = await app.deps.withdrawals.request(
      {
        amount: '10',
        currency: 'USDT',
        network: 'BSC',
        destination: '0x5555555555555555555555555555555555555555',
        clientEmail: client,
      },
      USERS.alice,
    );
    expect(r.ok).toBe(true);
    const stuck = await store.commit((tx) =>
      app.deps.outbox.enqueue(tx, {
        op: 'post',
        renderer: testRenderer('no-such-renderer'),
        ref: 'x',
        channel: 'C0ALERTS',
      }),
    );
    await until('every alert confirmed and its messages sent', () =>
      store.all(ALERT_COLLECTIONS.alerts).every((a) => /confirmed/i.test(a.status ?? '')) &&
      store.find(OUTBOX.entries, (e) => e.state === 'pending').length === 0
        ? true
        : undefined,
    );
    await app.deps.alerts.idle();
    await app.deps.outbox.drain();
    expect(store.get(OUTBOX.entries, stuck)?.state).toBe('failed');
    const oldAlerts = store.all(ALERT_COLLECTIONS.alerts).map((a) => a.id);
    const oldDone = store.find(OUTBOX.entries, (e) => e.state === 'done').map((e) => e.id);
    expect(oldDone.length).toBeGreaterThan(0);

    // 40 days later, a new deposit.
    clock.offset = 40 * DAY;
    await app.sandbox!.deposit({ to: client, amount: '103', currency: 'USDT', network: 'BSC' });
    await until('the new alert', () => store.count(ALERT_COLLECTIONS.alerts) > oldAlerts.length);
    await app.deps.alerts.idle();
    await app.deps.outbox.drain();
    const recent = store.all(ALERT_COLLECTIONS.alerts).find((a) => !oldAlerts.includes(a.id))!;
    const auditBefore = store.all(AUDIT_COLLECTION).map((e) => e.seq);
    const compactionsBefore = store.stats().compactions;

    await app.deps.scheduler.runNow('store.prune');
    expect(t.logs()).not.toContain('job failed');

    for (const id of oldAlerts) expect(store.get(ALERT_COLLECTIONS.alerts, id)).toBeUndefined();
    expect(store.find(ALERT_COLLECTIONS.events, (e) => oldAlerts.includes(e.alertId))).toEqual([]);
    for (const id of oldDone) expect(store.get(OUTBOX.entries, id)).toBeUndefined();
    // Kept: the recent alert and its events, the undelivered message, every audit entry, the request.
    expect(store.get(ALERT_COLLECTIONS.alerts, recent.id)).toBeDefined();
    expect(store.find(ALERT_COLLECTIONS.events, (e) => e.alertId === recent.id).length).toBeGreaterThan(0);
    expect(store.get(OUTBOX.entries, stuck)?.state).toBe('failed');
    const auditAfter = new Set(store.all(AUDIT_COLLECTION).map((e) => e.seq));
    for (const seq of auditBefore) expect(auditAfter.has(seq)).toBe(true);
    expect(store.get(WITHDRAWALS, r.ok ? r.request.id : '')).toBeDefined();
    // Compacted: the journal was cut under a fresh snapshot.
    expect(store.stats().compactions).toBe(compactionsBefore + 1);
    expect(t.logs()).toContain('pruned records older than the retention period');

    // Durable: a restart reads the pruned state.
    const counts = store.counts();
    await t.stop();
    t = undefined;
    const again = await openStore({ dir: dataDir });
    try {
      expect(again.counts()).toEqual(counts);
      for (const id of oldAlerts) expect(again.get(ALERT_COLLECTIONS.alerts, id)).toBeUndefined();
    } finally {
      await again.close();
    }
  });

  it('never keeps less than the webhook retry window, and says so in the log', async () => {
    expect(effectiveRetentionDays({ retention: { days: 1 } })).toEqual({
      days: WEBHOOK_RETRY_WINDOW_DAYS,
      clamped: true,
    });
    expect(effectiveRetentionDays({ retention: { days: 30 } })).toEqual({ days: 30, clamped: false });

    const dir = mkdtempSync(join(tmpdir(), 'retention-'));
    dirs.push(dir);
    let logs = '';
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write: (c, _e, cb) => {
          logs += c.toString();
          cb();
        },
      }),
    });
    const store = await openStore({ dir });
    try {
      const at = Date.parse('2026-11-23T00:00:00Z');
      // An alert last changed two days ago: inside the retry window, so kept although retention.days is 1.
      await store.commit((tx) =>
        tx.put(ALERT_COLLECTIONS.alerts, 'a1', {
          id: 'a1',
          kind: 'deposit',
          channel: 'C0ALERTS',
          mention: false,
          source: 'webhook',
          verification: { state: 'confirmed', attempts: 1 },
          history: [],
          messageKey: 'alert:a1',
          createdAt: at - 2 * DAY,
          updatedAt: at - 2 * DAY,
        }),
      );
      const res = await new Retention({
        store,
        logger,
        now: () => at,
        policy: fixedPolicy({ retention: { days: 1 } }),
      }).prune();
      expect(res).toMatchObject({ days: WEBHOOK_RETRY_WINDOW_DAYS, alerts: 0 });
      expect(store.get(ALERT_COLLECTIONS.alerts, 'a1')).toBeDefined();
      expect(logs).toContain('retention.days is below the webhook retry window; keeping 3 days');
    } finally {
      await store.close();
    }
  });
});
