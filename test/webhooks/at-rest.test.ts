/**
 * The generated webhook secrets at rest in the embedded store: sealed under SECRETS_KEY, so no
 * file of the data directory holds them (nor the key). Secrets an older version stored in clear
 * are sealed at the next start and still accepted, and leave the files; a rotation of
 * SECRETS_KEY (with SECRETS_KEY_PREVIOUS for one start) re-seals them; with a key that opens
 * nothing the app still starts, with a new secret, and says why.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { SETTINGS } from '../../src/webhooks/settings.js';
import { depositSample, send } from '../alerts/setup.js';
import { startTestApp, type TestApp } from '../helpers/treasury-app.js';

const dirs: string[] = [];
let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const key = () => randomBytes(32).toString('base64');

/** Every file under `dir`, as text. */
function files(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

function holding(dir: string, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const f of files(dir))
    for (const [what, value] of Object.entries(secrets)) if (f.text.includes(value)) found.push(`${what} in ${f.path}`);
  return found;
}

const notify = async (a: TestApp, secret: string) =>
  (
    await send(
      `${a.app.url}/webhooks/wallet/${secret}`,
      depositSample({ hash: `0x${randomBytes(32).toString('hex')}` }),
    )
  ).status;

describe('webhook secrets at rest (embedded store)', () => {
  it('seals secrets stored in clear at start, keeps accepting them, and leaves none in the files', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'at-rest-'));
    dirs.push(dataDir);
    const current = `cur-${randomBytes(18).toString('base64url')}`;
    const previous = `old-${randomBytes(18).toString('base64url')}`;
    // As an older version wrote them: in clear.
    const store = await openStore({ dir: dataDir });
    await store.commit((tx) => {
      tx.put(SETTINGS, 'webhookSecret', { value: current });
      tx.put(SETTINGS, 'webhookSecretPrevious', {
        value: previous,
        until: new Date(Date.now() + 600_000).toISOString(),
      });
    });
    await store.close();
    expect(holding(dataDir, { current })).not.toEqual([]);

    const secretsKey = key();
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: secretsKey } });
    expect(await notify(t, current)).toBe(200);
    expect(await notify(t, previous)).toBe(200);
    expect(await notify(t, `x-${randomBytes(18).toString('base64url')}`)).toBe(404);
    expect(t.app.deps.store.get(SETTINGS, 'webhookSecret')).toEqual({ sealed: expect.any(Object) });
    const { signingSecret, botToken } = t;
    await t.stop();
    t = undefined;
    expect(
      holding(dataDir, {
        current,
        previous,
        SECRETS_KEY: secretsKey,
        'SECRETS_KEY (hex)': Buffer.from(secretsKey, 'base64').toString('hex'),
        'Slack signing secret': signingSecret,
        'Slack bot token': botToken,
      }),
    ).toEqual([]);

    // Read back sealed at the next start, by the same key.
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: secretsKey } });
    expect(await notify(t, current)).toBe(200);
  });

  it('seals a secret generated before WEBHOOK_SECRET was set, though it is no longer used', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'at-rest-configured-'));
    dirs.push(dataDir);
    const generated = `gen-${randomBytes(18).toString('base64url')}`;
    const store = await openStore({ dir: dataDir });
    await store.commit((tx) => tx.put(SETTINGS, 'webhookSecret', { value: generated }));
    await store.close();
    const configured = `cfg-${randomBytes(18).toString('base64url')}`;
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: key(), WEBHOOK_SECRET: configured } });
    expect(await notify(t, configured)).toBe(200);
    expect(await notify(t, generated)).toBe(404);
    await t.stop();
    t = undefined;
    expect(holding(dataDir, { generated, configured })).toEqual([]);
  });

  it('re-seals under a new SECRETS_KEY with the previous one given once; a key that opens nothing gets a new secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'at-rest-rekey-'));
    dirs.push(dataDir);
    const [k1, k2, k3] = [key(), key(), key()];
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: k1 } });
    const secret = decodeURIComponent(/\/webhooks\/wallet\/([^/]+)\/verify$/.exec(t.app.deps.verificationUrl()!)![1]!);
    const sealedUnderK1 = JSON.stringify(t.app.deps.store.get(SETTINGS, 'webhookSecret'));
    await t.stop();

    t = await startTestApp({ dataDir, env: { SECRETS_KEY: k2, SECRETS_KEY_PREVIOUS: k1 } });
    expect(await notify(t, secret)).toBe(200);
    expect(JSON.stringify(t.app.deps.store.get(SETTINGS, 'webhookSecret'))).not.toBe(sealedUnderK1);
    await t.stop();
    // The previous key is no longer needed.
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: k2 } });
    expect(await notify(t, secret)).toBe(200);
    await t.stop();
    t = undefined;

    // A key that opens nothing (changed without SECRETS_KEY_PREVIOUS): the app still starts, as
    // for the step-up secrets, with a new webhook secret; the old URL is refused, the log says why.
    t = await startTestApp({ dataDir, env: { SECRETS_KEY: k3 } });
    expect(t.logs()).toContain('SECRETS_KEY does not open the stored webhook secret');
    expect(t.logs()).not.toContain(secret);
    expect(await notify(t, secret)).toBe(404);
    const replaced = decodeURIComponent(
      /\/webhooks\/wallet\/([^/]+)\/verify$/.exec(t.app.deps.verificationUrl()!)![1]!,
    );
    expect(replaced).not.toBe(secret);
    expect(await notify(t, replaced)).toBe(200);
  });
});
