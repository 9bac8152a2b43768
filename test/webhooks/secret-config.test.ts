/** WEBHOOK_SECRET_PREVIOUS in the configuration (issue 20, point 5): only beside WEBHOOK_SECRET, same format, never echoed. */
import { describe, expect, it } from 'vitest';
import { ConfigError, configSecrets, loadConfig } from '../../src/config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

const CURRENT = 'Qx7vK2pLm9Zt4RwB8nYc3HsJ';
const PREVIOUS = 'Fg5TbN1qXe6UoVd0AiWk2MzP';

describe('WEBHOOK_SECRET_PREVIOUS', () => {
  it('is read beside WEBHOOK_SECRET and registered as a secret', () => {
    const c = loadConfig({ WEBHOOK_SECRET: CURRENT, WEBHOOK_SECRET_PREVIOUS: PREVIOUS });
    expect(c.webhookSecretPrevious).toBe(PREVIOUS);
    expect(configSecrets(c)).toContain(PREVIOUS);
    expect(loadConfig({}).webhookSecretPrevious).toBeUndefined();
  });

  it('is refused alone, or in a shape that cannot be a path segment, without echoing it', () => {
    expect(problems({ WEBHOOK_SECRET_PREVIOUS: PREVIOUS })).toEqual([
      'WEBHOOK_SECRET_PREVIOUS: only with WEBHOOK_SECRET (it is the old WEBHOOK_SECRET, accepted for a short overlap while rotating)',
    ]);
    const bad = 'short/secret!';
    const p = problems({ WEBHOOK_SECRET: CURRENT, WEBHOOK_SECRET_PREVIOUS: bad });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^WEBHOOK_SECRET_PREVIOUS: must be at least 24 characters/);
    expect(p.join('\n')).not.toContain(bad);
  });
});
