/**
 * The verification callback on a standby: A leads (in this process, PostgreSQL), the sandbox's
 * verification call is held at a gate so A's withdrawal stays claimed for sending (`executing`
 * in the database); B stands by and answers the callback from the database with the leader's
 * decision: true with the checksum for that claimed withdrawal, false for a pending one, an
 * unknown reference or a wrong destination, 404 for a wrong secret. Each answered call reaches
 * A's audit log (through verification_inbox), once.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import { verifyAudit } from '../../src/audit/log.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { makeList } from '../../src/screening/list.js';
import { SCREENING_LIST } from '../../src/screening/service.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { CHANNELS, FINANCE_GROUP, freePort, startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { startGate, type Gate } from '../verification/gate.js';
import { eventually } from '../helpers/replicas.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const SECRET = 'verify-standby-secret-5f1c9a7e2b4d';

function expectedChecksum(reference: string): string {
  const hex = (s: string) => createHash('sha512').update(s, 'utf8').digest('hex').toUpperCase();
  return hex(`${hex(SANDBOX_MERCHANT.apiKey)}${reference}:${DEST}`);
}

describe.skipIf(!pgAvailable)(
  `the verification callback on a standby${pgSkipReason ? ` (${pgSkipReason})` : ''}`,
  () => {
    let url = '';
    let gate: Gate | undefined;
    let fake: FakeSlack;
    let leader: TestApp | undefined;
    /** The standby: its start (as the leader) finishes only once the leader stops. */
    let standby: Promise<TestApp> | undefined;
    beforeAll(async () => {
      url = await createTestDatabase('standby_verify');
      fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    }, 120_000);
    afterAll(async () => {
      for (const g of gate?.held ?? []) g.release();
      await leader?.stop().catch(() => {});
      await (await standby?.catch(() => undefined))?.stop().catch(() => {});
      await gate?.close();
      await fake?.close();
    }, 60_000);

    it('answers true only for a withdrawal claimed for sending, from the database, and the leader audits it', async () => {
      gate = await startGate();
      const g = gate;
      const env = { DATABASE_URL: url, WEBHOOK_SECRET: SECRET };
      const a = await startTestApp({
        env,
        fake,
        sandbox: { verificationUrl: () => g.url, verificationTimeoutMs: 60_000 },
      });
      leader = a;
      g.target = `${a.app.url}/webhooks/wallet/${SECRET}/verify`;
      a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');

      const port = await freePort();
      standby = startTestApp({ env: { ...env, PORT: String(port) }, fake });
      const base = `http://127.0.0.1:${port}`;
      expect((await eventually(() => fetch(`${base}/readyz`))).status).toBe(503);
      const verify = async (reference: string, extra = '', secret = SECRET) => {
        const res = await fetch(
          `${base}/webhooks/wallet/${secret}/verify?reference=${encodeURIComponent(reference)}${extra}`,
        );
        return { status: res.status, body: (await res.json()) as { isVerified?: boolean; checksum?: string } };
      };

      // another withdrawal whose stored text holds `\u0000` (a webhook's status, kept verbatim):
      // a json operator over it fails the whole query, so no call could be answered
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      await db.query(
        `INSERT INTO store_records (collection, id, ord, value)
           VALUES ('withdrawals', 'nul-row', 999999999, $1::json)`,
        ['{"id":"nul-row","merchantReference":"other-ref","notice":"bad\\u0000status"}'],
      );
      await db.end();

      const ours = () => a.app.deps.withdrawals.list();
      await a.command('/withdraw', `500 USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
      const r: WithdrawalRequest = await until('the request', () => ours()[0]);
      // pending: not being sent
      expect(await verify(r.merchantReference)).toEqual({ status: 200, body: { isVerified: false, checksum: '' } });

      const card = await until('the card', () =>
        a.fake.channel(CHANNELS.approvals).find((m) => m.text?.includes(r.merchantReference.slice(0, 8))),
      );
      await a.click(
        USERS.carol,
        { actionId: ACTIONS.approve, value: r.id },
        { channel: CHANNELS.approvals, message: { ts: card.ts } },
      );
      await until('the sandbox asking', () => g.held[0]);
      expect(a.app.deps.withdrawals.get(r.id)?.state).toBe('executing');

      expect(await verify(r.merchantReference)).toEqual({
        status: 200,
        body: { isVerified: true, checksum: expectedChecksum(r.merchantReference) },
      });
      const wrongDest = `&destinationAddress=${'0x3333333333333333333333333333333333333333'}`;
      expect((await verify(r.merchantReference, wrongDest)).body).toEqual({ isVerified: false, checksum: '' });
      expect((await verify('a-reference-we-never-made')).body).toEqual({ isVerified: false, checksum: '' });
      const wrongSecret = await verify(r.merchantReference, '', `${SECRET}x`);
      expect(wrongSecret.status).toBe(404);
      expect(wrongSecret.body).not.toHaveProperty('isVerified');

      // the four answered calls (not the wrong secret) reach the leader's audit log, once each
      const fromStandby = () =>
        recentAudit(a.app.deps.store, 1000).filter(
          (e) => e.action === 'verification' && e.details.answeredBy === 'standby',
        );
      await until('the standby’s calls in the audit log', () => fromStandby().length >= 4, 15_000);
      await new Promise((res) => setTimeout(res, 1_200));
      const got = fromStandby();
      expect(got.map((e) => e.details.verdict).sort()).toEqual(['refused', 'refused', 'refused', 'verified']);
      expect(got.find((e) => e.details.verdict === 'verified')?.subject).toBe(r.id);
      expect(verifyAudit(a.app.deps.store).ok).toBe(true);

      // the destination listed since (the list the leader keeps in the database): the standby refuses it too
      const listed = new pg.Client({ connectionString: url });
      await listed.connect();
      const served = makeList([DEST], {
        source: 'test',
        date: new Date().toISOString(),
        fetchedAt: new Date().toISOString(),
      });
      await listed.query(
        `INSERT INTO store_records (collection, id, ord, value) VALUES ($1, 'current', 999999998, $2::json)
           ON CONFLICT (collection, id) DO UPDATE SET value = EXCLUDED.value`,
        [SCREENING_LIST, JSON.stringify({ ...served, addresses: [...served.addresses] })],
      );
      expect((await verify(r.merchantReference)).body).toEqual({ isVerified: false, checksum: '' });
      await listed.query(`DELETE FROM store_records WHERE collection = $1`, [SCREENING_LIST]);
      await listed.end();

      // released: the leader's own route verifies it and the send completes
      g.held[0]!.release();
      await until('the send', () => ours()[0]?.state !== 'executing', 15_000);
    }, 90_000);
  },
);
