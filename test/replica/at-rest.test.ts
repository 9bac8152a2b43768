/**
 * No secret in clear at rest, with PostgreSQL: after the app ran (a generated webhook secret, a
 * rotation that keeps the previous one for its overlap, a step-up enrolment, webhooks a standby
 * took into the inbox), every row of every table of the schema, read as text, holds none of the
 * app's secrets: the webhook secret and the previous one, SECRETS_KEY, the wallet API key, the
 * Slack signing secret and bot token, the enrolled authenticator seed.
 *
 * The standby, meanwhile, accepts both webhook secrets, read sealed from the database with
 * SECRETS_KEY.
 * webhook_inbox included: its rows keep a keyed hash of the path secret, never the secret.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { codeAt } from '../../src/stepup/totp.js';
import { depositSample, send } from '../alerts/setup.js';
import { pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { eventually, replicaRig } from '../helpers/replicas.js';
import { freePort, startTestApp, USERS, visibleText } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const secretOf = (url: string | undefined) =>
  decodeURIComponent(/\/webhooks\/wallet\/([^/]+)\/verify$/.exec(url ?? '')![1]!);

describe.skipIf(!pgAvailable)(`no secret in clear in the database${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  const rig = replicaRig('atrest');
  const { apps, cleanups } = rig;

  it('every row of every table, as text, holds none of the secrets', async () => {
    const url = rig.url();
    const fake = rig.fake();
    const secretsKey = randomBytes(32).toString('base64');
    const env = { DATABASE_URL: url, SECRETS_KEY: secretsKey };
    const a = await startTestApp({ env, fake });
    apps.push(a);

    // A rotation: the generated secret becomes the previous one, accepted for the overlap.
    const first = secretOf(a.app.deps.verificationUrl());
    const { responseUrl } = await a.command('/treasury', 'webhook rotate', USERS.erin);
    expect(visibleText((await a.replies(responseUrl))[0]!)).toContain('Webhook secret rotated');
    const current = secretOf(a.app.deps.verificationUrl());
    expect(current).not.toBe(first);

    // A step-up enrolment, confirmed with its first code.
    const begun = await a.app.deps.stepUp.begin(USERS.carol);
    if (!begun.ok) throw new Error(begun.message);
    expect((await a.app.deps.stepUp.confirm(USERS.carol, codeAt(begun.secret, Date.now()))).ok).toBe(true);
    // A passkey set-up link, as its DM carries it: the store keeps its token sealed and its SHA-256 only.
    await a.command('/treasury', 'passkey', USERS.carol);
    const passkeyLink = await until('the passkey link DM', () =>
      fake
        .calls('chat.postMessage')
        .map((c) => /\/passkeys\/enrol\/([A-Za-z0-9_-]{43})/.exec(String(c.args.text ?? ''))?.[1])
        .find(Boolean),
    );
    await a.stop();
    apps.splice(apps.indexOf(a), 1);

    // A standby (the test holds the lead, so nothing drains the inbox) takes webhooks in, by both
    // secrets: it opens them sealed from the database.
    await rig.holdTheLead();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    cleanups.push(() => holder.end());
    const port = await freePort();
    const bStarting = startTestApp({ env: { ...env, PORT: String(port) }, fake });
    bStarting.then((b) => apps.push(b)).catch(() => {});
    const base = `http://127.0.0.1:${port}`;
    expect((await eventually(() => fetch(`${base}/healthz`))).status).toBe(200);
    for (const [secret, hash] of [
      [current, `0x${'c3'.repeat(32)}`],
      [first, `0x${'d4'.repeat(32)}`],
    ] as const) {
      expect((await send(`${base}/webhooks/wallet/${secret}`, depositSample({ hash }))).status).toBe(200);
    }
    expect((await send(`${base}/webhooks/wallet/not-the-secret-0123456789abcdef`, depositSample())).status).toBe(404);

    const secrets: Record<string, string> = {
      'webhook secret': current,
      'previous webhook secret': first,
      SECRETS_KEY: secretsKey,
      'SECRETS_KEY (hex)': Buffer.from(secretsKey, 'base64').toString('hex'),
      'wallet API key': SANDBOX_MERCHANT.apiKey,
      'wallet merchant password': SANDBOX_MERCHANT.password,
      'Slack signing secret': a.signingSecret,
      'Slack bot token': a.botToken,
      'authenticator seed': begun.secret,
      'passkey set-up link token': passkeyLink!,
    };

    const tables = (
      await holder.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
      )
    ).rows.map((r) => r.name);
    // The tables the story above wrote to are there and not empty: the dump reads what it should.
    expect(tables).toEqual(expect.arrayContaining(['store_records', 'webhook_inbox', 'replica_leader']));
    const found: string[] = [];
    for (const table of tables) {
      const { rows } = await holder.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`);
      if (table === 'webhook_inbox') expect(rows.length).toBe(2);
      if (table === 'store_records') {
        const text = rows.map((r) => r.row).join('\n');
        for (const id of ['webhookSecret', 'webhookSecretPrevious', 'stepup_enrolments'])
          expect(text, `store_records has ${id}`).toContain(id);
      }
      for (const { row } of rows) {
        for (const [what, value] of Object.entries(secrets)) {
          if (row.includes(value)) found.push(`${what} in ${table}`);
        }
      }
    }
    expect(found).toEqual([]);
  }, 90_000);
});
