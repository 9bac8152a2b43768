/**
 * SECRETS_KEY: the 256-bit key that seals TOTP secrets at rest (seal.ts). With a real Slack
 * workspace it must come from the environment, so the data directory alone never opens the
 * secrets; in local mode, and against a Slack stand-in on loopback (tests, the local
 * workspace), it is generated once and kept in the data directory, as WEBHOOK_SECRET is.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../config.js';
import { singletons, type Store } from '../store/index.js';
import { parseSecretsKey, SECRETS_KEY_FORMAT } from '../secrets-key.js';

export { parseSecretsKey, SECRETS_KEY_FORMAT };

/** The persisted name must never change. */
export const STEPUP_SETTINGS = singletons<{ secretsKey: { value: string } }>('stepup_settings');

/** A Slack Web API on loopback is never the real Slack (a test's fake, the local workspace). */
function standInSlack(slack: Config['slack']): boolean {
  if (slack.mode === 'local') return true;
  return (
    slack.apiUrl !== undefined && /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(slack.apiUrl)
  );
}

/** SECRETS_KEY_PREVIOUS: the key being rotated away from, if any (format checked by config). */
export function previousSecretsKey(config: Config): Buffer | undefined {
  return config.secretsKeyPrevious ? parseSecretsKey(config.secretsKeyPrevious) : undefined;
}

export async function resolveSecretsKey(config: Config, store: Store): Promise<Buffer> {
  if (config.secretsKey) {
    const key = parseSecretsKey(config.secretsKey);
    if (!key) throw new ConfigError([`SECRETS_KEY: ${SECRETS_KEY_FORMAT}`]);
    return key;
  }
  if (!standInSlack(config.slack)) {
    throw new ConfigError([
      `SECRETS_KEY: required with a real Slack workspace (it encrypts the approvers' authenticator secrets); ${SECRETS_KEY_FORMAT}`,
    ]);
  }
  const value = await store.commit((tx) => {
    const existing = tx.get(STEPUP_SETTINGS, 'secretsKey');
    if (existing) return existing.value;
    const generated = randomBytes(32).toString('base64');
    tx.put(STEPUP_SETTINGS, 'secretsKey', { value: generated });
    return generated;
  });
  return parseSecretsKey(value)!;
}
