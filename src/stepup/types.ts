/** The step-up records and their collections (persisted names: never change them). */
import { collection } from '../store/index.js';
import type { Sealed } from './seal.js';

export interface Enrolment {
  user: string;
  /** `pending` until the person typed a first valid code; only `active` enrolments verify approvals. */
  status: 'pending' | 'active';
  /** The TOTP secret, sealed under SECRETS_KEY with the user id as associated data. */
  secret: Sealed;
  startedAt: string;
  /** Names this set-up among a person's tries (two quick clicks start two): its QR image attaches only to it. */
  attempt?: string;
  confirmedAt?: string;
  /** The last time step whose code was accepted: codes of that step and earlier ones are spent. */
  lastStep?: number;
  /** Wrong (or replayed) codes in a row; five lock step-up for 15 minutes. */
  failures: number;
  /** Epoch ms; locked while now < lockedUntil. */
  lockedUntil?: number;
  /** The QR image uploaded (unshared) for the enrolment modal, deleted once enrolment is confirmed or abandoned. */
  qrFileId?: string;
}

/** Something a person or the admins must be told, rendered into Slack by the outbox from this record. */
export interface StepUpNotice {
  id: string;
  /** enrolled: told to the admins, since a hijacked Slack account could set up its own authenticator. */
  kind: 'locked' | 'reset' | 'enrolled';
  /** Whose step-up it is about. */
  user: string;
  /** reset: the admin who reset it. */
  by?: string;
  /** locked: epoch ms when it unlocks. */
  until?: number;
  at: string;
}

export const ENROLMENTS = collection<Enrolment>('stepup_enrolments');
export const NOTICES = collection<StepUpNotice>('stepup_notices');

export const MAX_WRONG_CODES = 5;
export const LOCK_MS = 15 * 60_000;
