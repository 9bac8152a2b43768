/**
 * The generated webhook secrets as a standby reads them, straight from the leader's records in
 * PostgreSQL (it has no store of its own): the current one, and the previous one during its
 * overlap, opened with SECRETS_KEY (sealed.ts). Without a configured key (local mode, a Slack
 * stand-in on loopback) the key is the generated one the leader keeps (src/stepup/key.ts).
 */
import type pg from 'pg';
import { parseSecretsKey } from '../secrets-key.js';
import { openSecret, type SecretKeys, type StoredSecret } from './sealed.js';

export async function storedWebhookSecrets(db: pg.Pool, configured: SecretKeys | undefined): Promise<string[]> {
  const { rows } = await db.query<{ collection: string; id: string; value: StoredSecret & { until?: string } }>(
    `SELECT collection, id, value FROM store_records
      WHERE (collection = 'settings' AND id IN ('webhookSecret', 'webhookSecretPrevious'))
         OR (collection = 'stepup_settings' AND id = 'secretsKey')`,
  );
  const generatedKey = rows.find((r) => r.collection === 'stepup_settings')?.value as { value?: string } | undefined;
  const key = configured ?? (generatedKey?.value ? { key: parseSecretsKey(generatedKey.value)! } : undefined);
  const out: string[] = [];
  for (const r of rows) {
    if (r.collection !== 'settings') continue;
    if (r.id === 'webhookSecretPrevious' && !(Date.now() < Date.parse(r.value.until ?? ''))) continue;
    // In clear (an older leader wrote it) needs no key; sealed with none to open it is not accepted.
    if (r.value.sealed === undefined) out.push(r.value.value);
    else if (key && r.id === 'webhookSecret') out.push(openSecret(key, r.value).value);
    // The leader drops a previous secret no key opens at its start; until then it is not accepted here.
    else if (key) {
      try {
        out.push(openSecret(key, r.value).value);
      } catch {}
    }
  }
  return out;
}
