/**
 * The webhook URL's secret path segment (also the key of the optional HMAC), and which secrets
 * are accepted right now: the current one and, for a short overlap after a rotation, the one it
 * replaced. The verification URL (`…/<secret>/verify`) follows the same set.
 *
 * - Generated (no WEBHOOK_SECRET): kept in the store; `rotate` replaces it from Slack and keeps
 *   the old one accepted until the overlap ends, then it is refused like any wrong secret.
 * - Configured (WEBHOOK_SECRET): rotated in the environment; WEBHOOK_SECRET_PREVIOUS is accepted
 *   for the overlap after this app first sees it (remembered in the store, so restarts do not
 *   extend it), then refused until it is removed.
 *
 * Secrets are never logged; every value is added to the scrubbing registry as soon as it is known.
 * Generated secrets are stored sealed under SECRETS_KEY (sealed.ts), never in clear.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { secrets as scrubbed } from '../secrets.js';
import type { Store, Tx } from '../store/index.js';
import { openSecret, sealSecret, type SecretKeys, type StoredSecret } from './sealed.js';
import { type Settings, SETTINGS } from './settings.js';

/** How long the secret before a rotation is still accepted. */
export const ROTATION_OVERLAP_MS = 10 * 60_000;

export interface WebhookSecrets {
  /** `configured`: WEBHOOK_SECRET (rotated in the environment); `generated`: kept in the store, rotated from Slack. */
  readonly source: 'configured' | 'generated';
  /** The secret to register with the wallet service and to build the verification URL with. */
  current(): string;
  /** Every secret a request may carry now: the current one, and the previous one during its overlap. */
  accepted(): readonly string[];
  /** When the previous secret stops being accepted; undefined when there is no overlap now. */
  overlapUntil(): number | undefined;
  /**
   * Generated secrets only: a new secret, committed with the old one kept for the overlap.
   * `inCommit` runs inside the same commit (the audit entry and the admins' notice).
   */
  rotate(inCommit: (tx: Tx, r: { until: number; at: number }) => void): Promise<{ until: number; at: number }>;
}

/** SHA-256 (hex) of a secret: what is stored to recognize it, never the value. */
export const secretDigest = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const digest = secretDigest;
const generate = () => randomBytes(24).toString('base64url');

export async function openWebhookSecrets(o: {
  configured: string | undefined;
  /** WEBHOOK_SECRET_PREVIOUS (only with `configured`). */
  previous?: string | undefined;
  store: Store;
  /** SECRETS_KEY (and SECRETS_KEY_PREVIOUS while re-keying): generated secrets are sealed under it. */
  keys: SecretKeys;
  logger: Logger;
  now: () => number;
  overlapMs?: number;
}): Promise<WebhookSecrets> {
  const overlap = o.overlapMs ?? ROTATION_OVERLAP_MS;
  const { store, now } = o;

  if (o.configured) {
    // Secrets generated before WEBHOOK_SECRET was set are not used, but are sealed all the same.
    await sealAtStart(store, o.keys, o.logger, false);
    const configured = o.configured;
    const previous = o.previous && o.previous !== configured ? o.previous : undefined;
    scrubbed.add(configured, previous);
    let until: number | undefined;
    if (previous) {
      const d = digest(previous);
      const since = await store.commit((tx) => {
        const seen = tx.get(SETTINGS, 'webhookSecretPreviousSeen');
        if (seen?.digest === d) return Date.parse(seen.since);
        const at = now();
        tx.put(SETTINGS, 'webhookSecretPreviousSeen', { digest: d, since: new Date(at).toISOString() });
        return at;
      });
      until = since + overlap;
      if (now() < until)
        o.logger.warn(
          { until: new Date(until).toISOString() },
          'WEBHOOK_SECRET_PREVIOUS is accepted until the overlap ends; remove it from the environment after that',
        );
      else o.logger.warn('WEBHOOK_SECRET_PREVIOUS is no longer accepted (its overlap has ended): remove it');
    }
    const open = () => until !== undefined && now() < until;
    return {
      source: 'configured',
      current: () => configured,
      accepted: () => (open() ? [configured, previous!] : [configured]),
      overlapUntil: () => (open() ? until : undefined),
      rotate: () => Promise.reject(new Error('WEBHOOK_SECRET is configured: rotate it in the environment')),
    };
  }

  if (o.previous) o.logger.warn('WEBHOOK_SECRET_PREVIOUS is ignored: WEBHOOK_SECRET is not set');
  const { keys } = o;
  await sealAtStart(store, keys, o.logger, true);
  // Opened once per stored record (a rotation writes a new one), not at every request.
  const opened = new Map<string, { rec: StoredSecret; value: string }>();
  const read = (id: 'webhookSecret' | 'webhookSecretPrevious'): string | undefined => {
    const rec = store.get(SETTINGS, id);
    if (!rec) return undefined;
    const hit = opened.get(id);
    if (hit?.rec === rec) return hit.value;
    const { value } = openSecret(keys, rec);
    scrubbed.add(value);
    opened.set(id, { rec, value });
    return value;
  };
  const current = () => read('webhookSecret')!;
  const previous = (): { value: string; until: number } | undefined => {
    const p = store.get(SETTINGS, 'webhookSecretPrevious');
    if (!p) return undefined;
    const until = Date.parse(p.until);
    if (!(now() < until)) return undefined;
    return { value: read('webhookSecretPrevious')!, until };
  };
  current();
  // The previous generated secret, however long ago its overlap ended: a request or an upstream
  // message may still carry it, and it must never reach a log line.
  read('webhookSecretPrevious');
  return {
    source: 'generated',
    current,
    accepted: () => {
      const p = previous();
      return p ? [current(), p.value] : [current()];
    },
    overlapUntil: () => previous()?.until,
    rotate: async (inCommit) => {
      const value = generate();
      scrubbed.add(value);
      const r = await store.commit((tx) => {
        const at = now();
        const until = at + overlap;
        const old = tx.get(SETTINGS, 'webhookSecret');
        tx.put(SETTINGS, 'webhookSecret', sealSecret(keys, value));
        // A second rotation within the overlap: the oldest secret is refused at once.
        if (old) {
          const sealed = sealSecret(keys, openSecret(keys, old).value);
          tx.put(SETTINGS, 'webhookSecretPrevious', { ...sealed, until: new Date(until).toISOString() });
        }
        const out = { until, at };
        inCommit(tx, out);
        return out;
      });
      return r;
    },
  };
}

/**
 * At start, in one commit: a secret made when there is none (`make`: generated secrets are in
 * use); one in clear (written by an older version) or sealed under SECRETS_KEY_PREVIOUS is sealed
 * again under SECRETS_KEY, and the embedded store's files rewritten without the clear one.
 *
 * A secret no key opens (SECRETS_KEY changed without SECRETS_KEY_PREVIOUS, or lost) does not stop
 * the start, as for the step-up secrets: a current one in use is replaced by a new secret (the
 * old URL is then refused; with PUBLIC_URL the new one is registered at start, and deposits are
 * not lost meanwhile: the reconciliation reads the transaction list), said at error level; a
 * previous one is dropped (it only shortens the last rotation's overlap).
 */
async function sealAtStart(store: Store, keys: SecretKeys, logger: Logger, make: boolean): Promise<void> {
  const tryOpen = (rec: StoredSecret) => {
    try {
      return openSecret(keys, rec);
    } catch {
      return undefined;
    }
  };
  const { resealed, replaced, dropped } = await store.commit((tx) => {
    const out = { resealed: 0, replaced: false, dropped: false };
    const cur = tx.get(SETTINGS, 'webhookSecret');
    const c = cur && tryOpen(cur);
    if (c?.reseal) {
      tx.put(SETTINGS, 'webhookSecret', sealSecret(keys, c.value));
      out.resealed++;
    } else if (!c && make) {
      tx.put(SETTINGS, 'webhookSecret', sealSecret(keys, generate()));
      out.replaced = cur !== undefined;
    }
    const prev: Settings['webhookSecretPrevious'] | undefined = tx.get(SETTINGS, 'webhookSecretPrevious');
    const p = prev && tryOpen(prev);
    if (prev && !p && make) {
      tx.delete(SETTINGS, 'webhookSecretPrevious');
      out.dropped = true;
    } else if (prev && p?.reseal) {
      tx.put(SETTINGS, 'webhookSecretPrevious', { ...sealSecret(keys, p.value), until: prev.until });
      out.resealed++;
    }
    return out;
  });
  if (resealed) {
    logger.info({ secrets: resealed }, 'webhook secrets sealed under the current SECRETS_KEY');
    // The embedded store's journal and snapshot still hold the records as they were: a snapshot
    // now leaves only the sealed ones on disk (PostgreSQL overwrote the rows already).
    await store.compact();
  }
  if (replaced)
    logger.error(
      'SECRETS_KEY does not open the stored webhook secret (the key changed?): a new one was made and the old webhook URL is refused. Register the new URL (/treasury webhook register; done at start when PUBLIC_URL is set) and paste the new verification URL (/treasury verification-url) into the wallet service',
    );
  if (dropped)
    logger.warn('SECRETS_KEY does not open the webhook secret before the last rotation: it is no longer accepted');
}
