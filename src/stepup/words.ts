/**
 * What a person is told when a code is refused: how many tries are left before the lockout,
 * and, once locked, until when. Shown as a modal's inline error (plain text, so the time is
 * written in UTC rather than as a Slack date token).
 */
import { utcMinute } from '../format/time.js';
import { LOCK_MS, MAX_WRONG_CODES } from './types.js';

const LOCK_MINUTES = LOCK_MS / 60_000;

/** "3 tries left", "1 try left". */
export const triesLeft = (n: number): string => `${n} ${n === 1 ? 'try' : 'tries'} left`;

/** A wrong (or already used) code that did not lock: what to do, and the tries left. */
export function wrongCodeWords(why: 'wrong' | 'replayed', failuresInARow: number): string {
  const lead =
    why === 'replayed'
      ? 'That code was already used. Wait for the next code in your authenticator app and type it.'
      : 'That code is not valid. Type the current code from your authenticator app.';
  const left = Math.max(0, MAX_WRONG_CODES - failuresInARow);
  return `${lead} ${triesLeft(left)} before your codes are locked for ${LOCK_MINUTES} minutes.`;
}

/** Locked: until when (minute in UTC, and how long from now), and that the admins know. */
export function lockedWords(until: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  return (
    `Your authenticator codes are locked after ${MAX_WRONG_CODES} wrong codes in a row, until ${utcMinute(until)} ` +
    `(in ${minutes} minute${minutes === 1 ? '' : 's'}). The admins have been told.`
  );
}
