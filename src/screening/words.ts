/**
 * The words of screening that the domain's refusals and the Slack side share: the list named as
 * a finance person reads it ("the OFAC sanctions list of 2024-09-27, from the bundled snapshot")
 * and an age ("3 days").
 */
import { utcDay } from '../format/time.js';
import type { ListRef } from './list.js';

/** "the OFAC sanctions list of 2024-09-27" (the date of its data). */
export const listName = (list: Pick<ListRef, 'date'>): string => `the OFAC sanctions list of ${utcDay(list.date)}`;

/** "40 minutes", "5 hours", "3 days": an age rounded down to its largest unit. */
export function ageWords(ms: number): string {
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (ms < 3_600_000) return unit(Math.floor(ms / 60_000), 'minute');
  if (ms < 2 * 86_400_000) return unit(Math.floor(ms / 3_600_000), 'hour');
  return unit(Math.floor(ms / 86_400_000), 'day');
}
