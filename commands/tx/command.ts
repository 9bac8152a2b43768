/**
 * /tx [filters]: one page of transactions; /tx export [filters]: all of them as a CSV file;
 * /tx batch [reference]: batch payouts and their rows (batch.ts).
 * Runs behind `requireRole('viewers')`, which acks.
 */
import type { App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { guarded } from '../../src/slack/guard.js';
import { cut, echo } from '../../src/slack/limits.js';
import { words } from '../../src/slack/text.js';
import { FILTER_HELP, parseFilters } from '../../src/transactions/filters.js';
import { EXPORT_FORMATS, type ExportFormat, isExportFormat } from '../../src/transactions/formats.js';
import type { CommandDeps } from '../deps.js';
import { exportToDm } from './export.js';
import { showPage } from './page.js';
import { BATCH_USAGE, batchReply } from './batch.js';

/** Longer than any sensible filter list (ten filters with 128-character hashes fit). */
const MAX_TEXT = 2_000;
/** As many as there are filter keys: a person fixing a command sees every problem of it. */
const MAX_ERRORS = 10;
const USAGE = `Usage: \`/tx [${FILTER_HELP}]\` or \`/tx export [format=${EXPORT_FORMATS.join('|')}] [filters]\` or ${BATCH_USAGE}`;

/** `format=…` of `/tx export`, taken out of the words before the filters are read. */
function takeFormat(words: string[]): { format: ExportFormat; rest: string[] } | { error: string } {
  const at = words.filter((w) => w.toLowerCase().startsWith('format='));
  const rest = words.filter((w) => !w.toLowerCase().startsWith('format='));
  if (at.length === 0) return { format: 'csv', rest };
  const value = at[0]!.slice('format='.length).toLowerCase();
  if (at.length > 1) return { error: 'format= is given more than once; give one' };
  if (!isExportFormat(value))
    return { error: `unknown format “${echo(value)}”; accepted: ${EXPORT_FORMATS.join(', ')}` };
  return { format: value, rest };
}

type TxCommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'respond'> & { client: App['client'] };

export function txCommand(deps: CommandDeps) {
  return async ({ command, respond, client }: TxCommandArgs): Promise<void> => {
    const w = words(command.text);
    const isExport = w[0]?.toLowerCase() === 'export';
    await guarded(deps.logger, respond, isExport ? 'Transaction export' : 'Transaction lookup', async () => {
      // Ten filters fit in a few hundred characters; a wall of text is refused without echoing it back.
      if (command.text.length > MAX_TEXT) {
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: That is ${command.text.length.toLocaleString('en')} characters; \`/tx\` takes at most ${MAX_TEXT} (a few key=value filters).\n${USAGE}`,
        }));
      }
      // A batch payout's rows: read from the app's own records (the service's list does not know batches).
      if (w[0]?.toLowerCase() === 'batch') {
        if (w.length > 2)
          return void (await respond({ response_type: 'ephemeral', text: `:warning: Usage: ${BATCH_USAGE}` }));
        return void (await respond({ response_type: 'ephemeral', ...batchReply(deps, w[1]) }));
      }
      const taken = isExport ? takeFormat(w.slice(1)) : { format: 'csv' as const, rest: w };
      if ('error' in taken)
        return void (await respond({ response_type: 'ephemeral', text: `:warning: ${taken.error}\n${USAGE}` }));
      const parsed = parseFilters(taken.rest);
      if (!parsed.ok && parsed.pending && parsed.errors.length === 1)
        // Not a mistake: the person is told where pending items are, in words and with the command.
        return void (await respond({
          response_type: 'ephemeral',
          text: `:information_source: ${parsed.errors[0]!.replace('/treasury pending', '`/treasury pending`')}`,
        }));
      if (!parsed.ok) {
        // Each quoted piece of the person's input is echoed short, on one line, escaped.
        const shown = parsed.errors.slice(0, MAX_ERRORS).map((e) =>
          cut(
            e.replace(/“([^”]*)”/g, (_m, q: string) => `“${echo(q)}”`),
            600,
          ),
        );
        const rest = parsed.errors.length - shown.length;
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: ${shown.join('\n:warning: ')}${rest > 0 ? `\n…and ${rest} more` : ''}\n${USAGE}`,
        }));
      }
      if (!isExport)
        return void (await respond({
          response_type: 'ephemeral',
          ...(await showPage(deps, parsed.raw, parsed.query)),
        }));
      await exportToDm(deps, respond, client, command.user_id, parsed.raw, parsed.query, taken.format);
    });
  };
}
