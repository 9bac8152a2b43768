/**
 * The `settings` collection: a few singletons, each id with its own shape, declared once here
 * (the webhook URL's secret path segment when generated, and the last registration outcome).
 */
import { singletons } from '../store/collection.js';
import type { WebhookRegistration } from './registration.js';

export interface Settings {
  /** Generated once when WEBHOOK_SECRET is not configured (a secret: never logged or shown). */
  webhookSecret: { value: string };
  webhookRegistration: WebhookRegistration;
}

/** The persisted name must never change: existing data directories are read by it. */
export const SETTINGS = singletons<Settings>('settings');
