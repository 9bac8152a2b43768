import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { SecretRegistry } from '../src/secrets.js';

describe('secret scrubbing', () => {
  it('removes secrets from log lines, also where JSON or a URL escaped them, and redacts known fields', () => {
    const registry = new SecretRegistry();
    const password = 'S3cr"et\\pw!';
    const key = 'sk_live_0123456789';
    registry.add(password, key, 'short');
    let out = '';
    const logger = createLogger({
      level: 'info',
      secrets: registry,
      destination: new Writable({
        write: (c, _e, cb) => {
          out += c.toString();
          cb();
        },
      }),
    });
    logger.info(
      {
        detail: `login with ${password}`,
        url: `https://x/?k=${encodeURIComponent(key)}`,
        nested: { authorization: 'ApiKey abc' },
      },
      `boom ${key}`,
    );
    logger.error({ err: new Error(`failed for ${password}`) }, 'request failed');
    logger.flush();
    expect(out).not.toContain(key);
    expect(out).not.toContain(JSON.stringify(password).slice(1, -1));
    expect(out).not.toContain('S3cr');
    expect(out).toContain('[REDACTED]');
    expect(out).not.toContain('ApiKey abc');
    // Values too short to be secrets are left alone: scrubbing them would mangle ordinary text.
    expect(registry.scrub('a short note')).toBe('a short note');
  });
});

describe('passkey link scrubbing', () => {
  it('masks the token of any passkey link by its shape, with nothing registered', () => {
    let out = '';
    const logger = createLogger({
      secrets: new SecretRegistry(),
      destination: new Writable({
        write: (c, _e, cb) => {
          out += c.toString();
          cb();
        },
      }),
    });
    const token = randomBytes(32).toString('base64url');
    const other = randomBytes(32).toString('base64url');
    logger.info(
      { url: `https://t.example/confirm/${token}/options` },
      `sent https://t.example/passkeys/enrol/${other}`,
    );
    logger.flush();
    expect(out).not.toContain(token);
    expect(out).not.toContain(other);
    expect(out).toContain('/confirm/[REDACTED]/options');
    expect(out).toContain('/passkeys/enrol/[REDACTED]');
  });
});

describe('error serializer', () => {
  it('reduces an axios error to status, method and path: no config, headers, query or body', async () => {
    const { default: axios } = await import('axios');
    const { createServer } = await import('node:http');
    const { serializeError } = await import('../src/log.js');
    const srv = createServer((_req, res) => {
      res.statusCode = 502;
      res.end('upstream said: token=abc');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    let err: unknown;
    try {
      await axios.post(
        `http://127.0.0.1:${port}/api/thing?apiKey=sk_query_0123456789`,
        { password: 'body-secret-0123' },
        { headers: { Authorization: 'ApiKey sk_header_0123456789' } },
      );
    } catch (e) {
      err = e;
    } finally {
      srv.close();
    }
    const out = serializeError(err);
    expect(out).toMatchObject({ status: 502, method: 'post', url: `http://127.0.0.1:${port}/api/thing` });
    const text = JSON.stringify(out);
    for (const secret of ['sk_query_0123456789', 'body-secret-0123', 'sk_header_0123456789', 'token=abc'])
      expect(text).not.toContain(secret);
    expect(out).not.toHaveProperty('config');
    expect(out).not.toHaveProperty('stack');
  });
});
