/**
 * `/treasury balances`: the origin accounts' balances, read from the wallet service now, one
 * line per currency and network, with the low-balance threshold where the policy sets one.
 */
import { utcMinute } from '../../src/format/time.js';
import { context, header, packLines, section } from '../../src/slack/blocks.js';
import { userMessage } from '../../src/slack/user-errors.js';
import { balancesTotal, balanceLines } from '../../src/slack/home/balances.js';
import type { VerbRun } from './verb.js';

export const balancesVerb: VerbRun = {
  run: async ({ deps, respond }) => {
    const reading = await deps.balances.book.refresh();
    if (!reading.ok) {
      return void (await respond({
        response_type: 'ephemeral',
        text: userMessage(reading.error, 'Reading the balances'),
      }));
    }
    const prices = deps.prices.snapshot();
    const lines = balanceLines(reading.rows, deps.policy.current().alerts.low_balance, prices);
    await respond({
      response_type: 'ephemeral',
      text: 'Balances',
      blocks: [
        header('Balances'),
        ...packLines(lines.length ? lines : ['_The wallet service lists no balances._']).slice(0, 44),
        ...(lines.length ? [section(balancesTotal(reading.rows, prices))] : []),
        context(`Read from the wallet service at ${utcMinute(reading.at)}`),
      ],
    });
  },
};
