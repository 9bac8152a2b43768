/** The app's cleanup stack, and the app stopping what it built when starting fails half-way. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { CleanupStack } from '../../src/app/cleanup.js';
import { loadConfig } from '../../src/config.js';
import { PolicyError } from '../../src/policy/load.js';
import { createLogger } from '../../src/log.js';

describe('CleanupStack', () => {
  it('stops in reverse order, keeps going past a failing stop (logged), and stops nothing twice', async () => {
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
    const text = () => logged;
    const stack = new CleanupStack(logger);
    const stopped: string[] = [];
    stack.push(async () => void stopped.push('store'));
    stack.push(async () => {
      stopped.push('outbox');
      throw new Error('outbox would not stop');
    });
    stack.push(async () => void stopped.push('http'));
    await stack.stopAll();
    expect(stopped).toEqual(['http', 'outbox', 'store']);
    expect(text()).toContain('error while stopping');
    expect(text()).toContain('outbox would not stop');
    await stack.stopAll();
    expect(stopped).toEqual(['http', 'outbox', 'store']);
  });
});

describe('startApp', () => {
  it('a start that fails half-way (no policy file) closes what it opened: the same data directory opens again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'treasury-cleanup-'));
    const env = { PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    try {
      const failing = startApp({ config: loadConfig({ ...env, POLICY_FILE: join(dataDir, 'missing.yml') }) });
      await expect(failing).rejects.toBeInstanceOf(PolicyError);
      const app = await startApp({ config: loadConfig({ ...env, POLICY_FILE: 'policy.example.yml' }) });
      expect(app.deps.store.stats().dir).toBe(dataDir);
      await app.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
