/**
 * Who is away, and whom they hand their approvals to (issue 39): one record per person, in the
 * store (both the embedded store and PostgreSQL keep every collection), so it survives a restart
 * and a failover. A record past its `until` is simply no longer in force: nothing needs to clear it.
 */
import { collection } from '../store/index.js';

export interface AwayRecord {
  /** The person who is away (a Slack user id). */
  id: string;
  /** ISO time they are back. */
  until: string;
  /** Who approves in their place meanwhile (one level only); absent: nobody. */
  delegate?: string;
  /** Who set it: the person, or an admin. */
  setBy: string;
  at: string;
}

/** The persisted name must never change. */
export const AWAY = collection<AwayRecord>('away');

/** What a person is told when someone else changed their away state, or named them delegate; what the admins are told of a delegation. */
export interface AwayNotice {
  id: string;
  /** admins-set / admins-ended: a delegation set or ended, told to each admin (a hijacked account could set one). */
  kind: 'set-for-you' | 'back-for-you' | 'delegate' | 'admins-set' | 'admins-ended';
  /** Whom the DM goes to. */
  to: string;
  /** The person away (or back). */
  user: string;
  by: string;
  until?: string;
  delegate?: string;
  at: string;
}

export const AWAY_NOTICES = collection<AwayNotice>('away_notices');
