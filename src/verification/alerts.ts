/**
 * The admins' alarm when the wallet service asks us to verify a withdrawal we did not approve:
 * someone holds the merchant API key. One per reference (the service may retry its callback),
 * kept here so the outbox renders it from what was known at the call.
 */
import { collection } from '../store/index.js';
import type { VerdictReason } from './verdict.js';

export interface VerificationAlert {
  reference: string;
  reason: VerdictReason;
  at: string;
  /** Known only when the reference is one of ours. */
  state?: string;
  destination?: string;
  amount?: string;
  currency?: string;
  network?: string;
  requester?: string;
}

/** By merchant reference; the persisted name must never change. */
export const VERIFICATION_ALERTS = collection<VerificationAlert>('verification_alerts');

export const VERIFICATION_ALERT_RENDERER = 'verification_alert';
export const verificationAlertKey = (reference: string) => `verification-alert:${reference}`;
