/**
 * A failed webhook registration is stored (and shown to admins in /treasury status) in the
 * wallet service's own words, which may echo the URL we sent it: the secret path segment must
 * never be kept or shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { secrets } from '../../src/secrets.js';
import { openStore, type Store } from '../../src/store/index.js';
import { registerWebhook, registrationStatus } from '../../src/webhooks/registration.js';

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('webhook registration', () => {
  it('keeps no secret from a refusal that echoes the URL it was given', async () => {
    dir = mkdtempSync(join(tmpdir(), 'treasury-registration-'));
    store = await openStore({ dir });
    const secret = 'hook-secret-0123456789abcdefghij';
    secrets.add(secret);
    let logged = '';
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write: (c, _e, cb) => {
          logged += c.toString();
          cb();
        },
      }),
    });
    const wallet = {
      setWebhookUrl: async (url: string) => {
        throw new Error(`The URL ${url} did not answer`);
      },
    };
    const r = await registerWebhook({
      wallet,
      store,
      logger,
      publicUrl: 'https://treasury.example.com',
      secret,
      by: 'test',
    });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('https://treasury.example.com/webhooks/wallet/');
    expect(r.error).toContain('did not answer');
    expect(r.error).not.toContain(secret);
    expect(JSON.stringify(registrationStatus(store))).not.toContain(secret);
    expect(logged).not.toContain(secret);
  });
});
