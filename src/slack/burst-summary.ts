/**
 * The words of a burst summary: many posts for one channel folded into one message with the
 * posts as thread replies under it (src/outbox/batching.ts counts them, this says it).
 */
import type { BurstRenderer, Outbox } from '../outbox/index.js';

/**
 * "<!here> 12 deposits, 2 withdrawals in the last 3 minutes. Details in the thread." Text only,
 * no blocks: Slack shows a message's text as mrkdwn, so the summary (its @here included) reads
 * the same as a notification.
 */
export const renderBurstSummary: BurstRenderer = (b, ctx) => {
  const parts = Object.entries(b.labels).map(([label, n]) => `${n} ${label}${n === 1 ? '' : 's'}`);
  const minutes = Math.max(1, Math.ceil((ctx.now - b.firstAt) / 60_000));
  const span = minutes === 1 ? 'the last minute' : `the last ${minutes} minutes`;
  return { text: `${b.mention ? '<!here> ' : ''}${parts.join(', ')} in ${span}. Details in the thread.` };
};

/** Call before `outbox.start()` (a summary with no renderer is parked). */
export function registerBurstSummaryRenderer(outbox: Pick<Outbox, 'registerBurstRenderer'>): void {
  outbox.registerBurstRenderer(renderBurstSummary);
}
