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
    const logger = createLogger({ level: 'info', secrets: registry, destination: new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }) });
    logger.info({ detail: `login with ${password}`, url: `https://x/?k=${encodeURIComponent(key)}`, nested: { authorization: 'ApiKey abc' } }, `boom ${key}`);
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
