/**
 * `/treasury digest [days]`: the digest of the last `days` days (1 to 31; default 1, the last
 * 24 hours) as an ephemeral answer, and its chart (per day, the last 14 days or the period asked
 * if longer) in the person's direct messages: a digest asked for is private, so its chart is never posted in the
 * channel where it was asked (a file upload cannot be ephemeral). The building is src/digest/;
 * this only parses, answers and routes.
 */
import type { App, RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { periodWords } from '../../src/digest/message.js';
import { renderDigest } from '../../src/slack/digest-message.js';
import { utcDay } from '../../src/format/time.js';
import { context } from '../../src/slack/blocks.js';
import { dmChannel } from '../../src/slack/guard.js';
import { echo } from '../../src/slack/limits.js';
import { z } from 'zod';
import type { CommandDeps } from '../deps.js';

export const DIGEST_USAGE = '`/treasury digest [days]`: days from 1 to 31 (default 1, the last 24 hours)';

const daysSchema = z.coerce.number().int().min(1).max(31);

/** The days asked for, or the reason they cannot be used. */
export function parseDigestDays(args: readonly string[]): { ok: true; days: number } | { ok: false; message: string } {
  const rest = args.slice(1);
  if (rest.length === 0) return { ok: true, days: 1 };
  const [first] = rest;
  if (rest.length > 1 || !/^\d{1,3}$/.test(first!)) {
    return { ok: false, message: `“${echo(rest.join(' '))}” is not a number of days. Usage: ${DIGEST_USAGE}.` };
  }
  const parsed = daysSchema.safeParse(first);
  return parsed.success
    ? { ok: true, days: parsed.data }
    : { ok: false, message: `${first} days is out of range. Usage: ${DIGEST_USAGE}.` };
}

export async function digestVerb(ctx: {
  deps: CommandDeps;
  args: string[];
  respond: RespondFn;
  client: App['client'];
  userId: string;
}): Promise<void> {
  const { deps, respond } = ctx;
  const asked = parseDigestDays(ctx.args);
  if (!asked.ok) return void (await respond({ response_type: 'ephemeral', text: `:warning: ${asked.message}` }));
  const digest = await deps.digests.build(asked.days);
  const rendered = renderDigest(digest);
  await respond({
    response_type: 'ephemeral',
    ...rendered,
    blocks: [
      ...(rendered.blocks ?? []),
      context(`The chart of the last ${digest.chart.days.length} days is on its way to your direct messages.`),
    ] as KnownBlock[],
  });
  // The chart's own span in its title (14 days for `digest 7`: it is not the digest's period).
  const title = `Treasury digest chart ${utcDay(deps.now())} (${periodWords(digest.chart.days.length)})`;
  try {
    await deps.digests.uploadChart(digest, await dmChannel(ctx.client, ctx.userId), title);
  } catch (err) {
    deps.logger.warn({ err }, 'could not upload the digest chart');
    await respond({
      response_type: 'ephemeral',
      text: ':warning: The chart could not be sent to your direct messages this time; the digest above has every number. Ask again to get the chart.',
    });
  }
}
