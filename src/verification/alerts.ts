/**
 * What the admins are told when the wallet service asks us to verify a withdrawal and we
 * refuse: an alarm when it is one the quorum never approved (an unknown reference, a request
 * still pending, rejected or expired, or ours sent elsewhere: someone holds the merchant API
 * key), a plain notice when it is ours, approved, and no longer to be confirmed (frozen, sent,
 * failed...). One per reference (the service may retry its callback), kept here so the outbox
 * renders it from what was known at the call.
 */
import { createHash } from 'node:crypto';
import { collection } from '../store/index.js';
import type { WithdrawalState } from '../withdrawals/index.js';
import { isMismatch, type VerdictReason } from './verdict.js';

export interface VerificationAlert {
  /** The reference as asked (shortened: see shortReference); any text, escape it to show it. */
  reference: string;
  reason: VerdictReason;
  at: string;
  /** `notice`: ours, approved by the quorum; absent (records before notices existed) or `alarm`: the alarm. */
  kind?: VerificationAlertKind;
  /** Known only when the reference is one of ours. */
  state?: string;
  destination?: string;
  amount?: string;
  currency?: string;
  network?: string;
  requester?: string;
  /** The call's values that differ from the approved ones, as asked ("amount 5000; network ETH"): any text, escape it to show it. */
  asked?: string;
}

export type VerificationAlertKind = 'alarm' | 'notice';

/** The states a request reaches only once the policy's quorum approved it. */
const APPROVED_BY_QUORUM: ReadonlySet<WithdrawalState> = new Set([
  'approved',
  'executing',
  'completed',
  'failed',
  'unknown',
]);

/**
 * Alarm or plain notice for a refused call. A destination, amount, currency or network that is
 * not the approved one is an alarm even for our approved request: the service was asked to send
 * something we did not approve.
 */
export function refusalKind(reason: VerdictReason, state: WithdrawalState | undefined): VerificationAlertKind {
  if (isMismatch(reason)) return 'alarm';
  return state && APPROVED_BY_QUORUM.has(state) ? 'notice' : 'alarm';
}

/** At most this many characters of a reference are kept (audit, alarm record); ours are 36. */
export const REFERENCE_KEPT = 120;

/** The reference shortened to REFERENCE_KEPT characters (whole code points), marked when cut. */
export function shortReference(raw: string, max = REFERENCE_KEPT): string {
  const points = Array.from(raw);
  return points.length <= max ? raw : `${points.slice(0, max - 1).join('')}…`;
}

/**
 * The record's id: a hash of the reference exactly as asked, so any reference (spaces,
 * non-ASCII, thousands of characters) has one record and the id stays short. One alarm and
 * one notice at most per reference: a notice (a late call about one of ours) never silences
 * a later alarm about the same reference.
 */
export const verificationAlertId = (rawReference: string, kind: VerificationAlertKind) =>
  `ref-sha256:${createHash('sha256').update(rawReference, 'utf8').digest('hex')}${kind === 'notice' ? ':notice' : ''}`;

/** By verificationAlertId (records written before it are keyed by the reference itself); the persisted name must never change. */
export const VERIFICATION_ALERTS = collection<VerificationAlert>('verification_alerts');

export const VERIFICATION_ALERT_RENDERER = 'verification_alert';
export const verificationAlertKey = (id: string) => `verification-alert:${id}`;
