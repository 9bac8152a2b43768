/**
 * A failed webhook registration is stored (and shown to admins in /treasury status) in the
 * wallet service's own words, which may echo the URL we sent it (or part of it, or an older
 * one): no webhook path segment is ever kept, logged or shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { secrets } from '../../src/secrets.js';
import { openStore, type Store } from '../../src/store/index.js';
import { webhookStatusField } from '../../commands/treasury/webhook-rotate.js';
import type { CommandDeps } from '../../commands/deps.js';
import { maskWebhookPaths, registerWebhook, registrationStatus } from '../../src/webhooks/registration.js';
import { secretDigest } from '../../src/webhooks/secrets.js';

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
    // The record knows which secret it registered by its digest only.
    expect(registrationStatus(store)?.secretDigest).toBe(secretDigest(secret));
  });

  it('masks any webhook path segment in the service’s words, even one that is no known secret', async () => {
    dir = mkdtempSync(join(tmpdir(), 'treasury-registration-'));
    store = await openStore({ dir });
    const secret = 'hook-secret-fedcba9876543210zyxw';
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
    // A service that truncates what it echoes, or quotes an older URL it still holds.
    const wallet = {
      setWebhookUrl: async (url: string) => {
        const path = new URL(url).pathname;
        throw new Error(
          `Rejected "${path.slice(0, path.length - 9)}…": the current hook /WEBHOOKS/wallet/older-Unknown_Secret-42/verify?x=1 stays`,
        );
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
    expect(r.error).toBe('Rejected "/webhooks/wallet/••••": the current hook /webhooks/wallet/••••/verify?x=1 stays');
    const kept = JSON.stringify(registrationStatus(store));
    for (const piece of [secret.slice(0, 10), 'older-Unknown_Secret-42']) {
      expect(kept).not.toContain(piece);
      expect(logged).not.toContain(piece);
    }
    expect(logged).toContain('webhook URL registration failed');

    // A record stored by an older version, unmasked, is masked when /treasury status shows it.
    const deps = {
      config: { publicUrl: 'https://treasury.example.com' },
      webhookRotation: { overlapUntil: () => undefined, isCurrent: () => true },
    } as unknown as CommandDeps;
    const field = webhookStatusField(deps, {
      shownUrl: 'https://treasury.example.com/webhooks/wallet/••••',
      at: new Date().toISOString(),
      ok: false,
      error: 'no answer from https://treasury.example.com/webhooks/wallet/partial-secret-123',
      by: 'test',
    });
    expect(field).toContain('no answer from https://treasury.example.com/webhooks/wallet/••••');
    expect(field).not.toContain('partial-secret-123');
    expect(maskWebhookPaths('/webhooks/wallet/••••/verify')).toBe('/webhooks/wallet/••••/verify');
  });
});
