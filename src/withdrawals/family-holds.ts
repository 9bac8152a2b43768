/**
 * The holds a change of a "never executed" request puts on the rest of its payout, applied in
 * the change's own commit (hold/decide.ts decides each one): the service's answer that it has
 * the request after all holds or flags every other member; a notification alone (a claim, maybe
 * forged) only holds, as a precaution, those not yet claimed for sending.
 */
import type { Logger } from '../log.js';
import type { Tx } from '../store/index.js';
import { holdTargets, notifiedAfterNeverExecuted, reportedAfterNeverExecuted } from './hold/family.js';
import { WITHDRAWALS, type Shell } from './shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from './types.js';

export function holdFamily(
  shell: Shell,
  tx: Tx,
  before: WithdrawalRequest,
  after: WithdrawalRequest,
  logger: Logger,
): WithdrawalEvent[] {
  const basis = reportedAfterNeverExecuted(before, after)
    ? 'service'
    : notifiedAfterNeverExecuted(before, after)
      ? 'notice'
      : undefined;
  if (!basis) return [];
  const events = holdTargets(tx.all(WITHDRAWALS), after).flatMap((r) => {
    const held = shell.apply(tx, { type: 'hold-repeat', original: after, basis }, r).event;
    return held ? [held] : [];
  });
  if (events.length)
    logger.warn(
      { id: after.id, basis, repeats: events.map((x) => ({ id: x.request.id, outcome: x.type })) },
      basis === 'service'
        ? 'a withdrawal found never executed is now reported by the wallet service: its repeats are held or flagged'
        : 'a notification names a withdrawal found never executed: its repeats not yet sent are held as a precaution while the wallet service is asked',
    );
  return events;
}
