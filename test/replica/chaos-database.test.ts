/**
 * Replicas ride out the database (issue 35): the server restarted, then stopped for 20 s,
 * under replicas running as real processes (src/main.ts) with no supervisor, while webhooks
 * stream to every replica in turn. After each: the standby is alive (the leader that lost its
 * session exited 70, by design: docs/guides/replicas.md), a leader is ready within 5 s of the
 * database's return, no webhook was answered 2xx while it was down, every one answered 2xx is
 * alerted exactly once, and the audit chain verifies. Across the restart, withdrawals too (signed
 * Slack requests): one completed before, one whose approval is durable as the server restarts, one
 * through the new leader; each sent at most once and ended as the rules say (`eachApprovedSentOnce`).
 * The other faults: chaos-replicas.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  afterChaos,
  aliveExcept,
  auditVerifies,
  approveWithdrawal,
  eachAckedAlertedOnce,
  eachApprovedSentOnce,
  replicas,
  requestWithdrawal,
  setupChaos,
  sleep,
  stateOf,
  teardownChaos,
  theCluster,
  untilAsync,
  webhookStream,
  withdrawCompleted,
} from '../helpers/chaos.js';
import { pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { firstReady } from '../helpers/replica-process.js';

const RETRYING = /cannot reach the database to lead: trying again/g;

describe.skipIf(!pgAvailable)(`replicas ride out the database${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  beforeAll(setupChaos, 60_000);
  afterEach(afterChaos);
  afterAll(teardownChaos);

  it('pg_ctl restart: the standby leads within 5 s of the return, nothing acknowledged is lost, each approved withdrawal sent once', async () => {
    const { url, all, leader } = await replicas(2);
    const standby = all.find((r) => r !== leader)!;
    const stream = webhookStream(all);
    // one sent before the fault; one whose approval is durable as the server restarts (its
    // send claimed, in flight or not yet made)
    const before = await withdrawCompleted(leader, url);
    const around = await requestWithdrawal(leader, url);
    expect(await approveWithdrawal(leader, around)).toBe(200);
    await untilAsync('the approval recorded', async () => (await stateOf(url, around)) !== 'pending', 5_000, 5);
    theCluster().restart();
    const back = Date.now();
    const { ms, leader: next } = await firstReady(all, 10_000);
    expect(ms).toBeLessThan(5_000);
    // and one through the new leader
    const after = await withdrawCompleted(next, url);
    const sent = await stream.stop();
    aliveExcept(all, [leader]);
    expect(leader.out()).toMatch(/no longer leads/);
    // its wait for the lock was cut (57P01): it tried again rather than exiting
    expect(standby.out()).toMatch(RETRYING);
    expect(sent.filter((s) => s.at > back).length).toBeGreaterThan(0);
    await eachAckedAlertedOnce(sent);
    await eachApprovedSentOnce(url, [before, around, after]);
    await auditVerifies(url, all);
  }, 60_000);

  it('a 20 s stop: the standby stays up and healthy, no webhook is acknowledged, a leader is ready within 5 s of the return', async () => {
    const { url, all, leader } = await replicas(2);
    const standby = all.find((r) => r !== leader)!;
    const stream = webhookStream(all);
    await sleep(300);
    theCluster().stop();
    const down = Date.now();
    await sleep(20_000);
    // alive, answering its health check with its role, not ready, all through the outage
    const health = await fetch(`${standby.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ role: 'standby' });
    expect((await fetch(`${standby.url}/readyz`)).status).toBe(503);
    const up = Date.now();
    theCluster().start();
    const back = Date.now();
    const { ms } = await firstReady(all, 10_000);
    expect(ms).toBeLessThan(5_000);
    await sleep(300);
    const sent = await stream.stop();
    const during = sent.filter((s) => s.at > down && s.done < up);
    expect(during.length).toBeGreaterThan(50);
    expect(during.filter((s) => s.status !== undefined && s.status < 300)).toEqual([]);
    expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    aliveExcept(all, [leader]);
    // each try is logged: with waits capped at 2 s, at least ten over 20 s
    expect((standby.out().match(RETRYING) ?? []).length).toBeGreaterThanOrEqual(10);
    expect(sent.filter((s) => s.at > back).length).toBeGreaterThan(0);
    await eachAckedAlertedOnce(sent);
    await auditVerifies(url, all);
  }, 70_000);
});
