/**
 * The `settings` collection: a few singletons, each id with its own shape, declared once here
 * (the webhook URL's secret path segment when generated, the one it replaced while the overlap
 * of a rotation lasts, and the last registration outcome).
 */
import { singletons } from '../store/collection.js';
import type { StoredSecret } from './sealed.js';

export interface WebhookRegistration {
  /** PUBLIC_URL/webhooks/wallet/•••• (never the secret). */
  shownUrl: string;
  at: string;
  ok: boolean;
  /** The answer could not be read: the registration may have succeeded (`error` says how to check). */
  uncertain?: boolean;
  error?: string;
  by: string;
  /** SHA-256 (hex) of the secret in the URL sent: compared with the current one, never shown. Absent in older records. */
  secretDigest?: string;
}

export interface Settings {
  /** Generated once when WEBHOOK_SECRET is not configured (a secret: never logged or shown; sealed, sealed.ts). */
  webhookSecret: StoredSecret;
  /** The generated secret before the last rotation, still accepted until `until` (ISO 8601). */
  webhookSecretPrevious: StoredSecret & { until: string };
  /**
   * With WEBHOOK_SECRET_PREVIOUS configured: when this app first saw that value (its SHA-256, never
   * the value), so a restart does not open its overlap again.
   */
  webhookSecretPreviousSeen: { digest: string; since: string };
  webhookRegistration: WebhookRegistration;
}

/** The persisted name must never change: existing data directories are read by it. */
export const SETTINGS = singletons<Settings>('settings');
