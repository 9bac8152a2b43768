/**
 * The one limit on reminding people (issue 39): nobody gets more than one reminder per 4 hours
 * across every request, whether the escalation DM (escalation.ts) or the 75% reminder
 * (reminders.ts). A record per person, written in the commit of the DM.
 */
import { collection, type Tx } from '../store/index.js';

export const PERSON_QUIET_MS = 4 * 3_600_000;

export interface PersonNudge {
  id: string;
  at: string;
}

/** The persisted name must never change. */
export const PERSON_NUDGES = collection<PersonNudge>('person_nudges');

/** Whether `user` may be reminded at `now` (nothing in the last 4 hours). */
export const mayNudge = (read: Pick<Tx, 'get'>, user: string, now: number): boolean => {
  const last = read.get(PERSON_NUDGES, user);
  return !last || now - Date.parse(last.at) >= PERSON_QUIET_MS;
};

/** Records a reminder to each of `users` at `at` (inside the commit that queues it). */
export const nudged = (tx: Tx, users: readonly string[], at: string): void => {
  for (const u of users) tx.put(PERSON_NUDGES, u, { id: u, at });
};
