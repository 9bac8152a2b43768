/**
 * /tx export [filters]: every matching record as a CSV file in the person's DM, with progress
 * shown by editing the command's reply.
 */
import type { App, RespondFn } from '@slack/bolt';
import { outside, outsidePlain } from '../../src/format/outside.js';
import { utcDay } from '../../src/format/time.js';
import { fileNamer } from '../../src/transactions/file-name.js';
import { dmChannel } from '../../src/slack/guard.js';
import { exportTransactions, ExportTooLargeError } from '../../src/transactions/export.js';
import { describeFilters, type RawFilters, type TxQuery } from '../../src/transactions/filters.js';
import { accountingNotes, type ExportFormat, FORMAT_NAMES } from '../../src/transactions/formats.js';
import type { CommandDeps } from '../deps.js';
import { txFacts } from './facts.js';

/** One namer for the process: two exports never get the same file name. */
const names = fileNamer();

export async function exportToDm(
  deps: CommandDeps,
  respond: RespondFn,
  client: App['client'],
  userId: string,
  raw: RawFilters,
  query: TxQuery,
  format: ExportFormat = 'csv',
): Promise<void> {
  const filters = describeFilters(raw);
  await respond({
    response_type: 'ephemeral',
    text: `:hourglass_flowing_sand: Exporting transactions (filters: \`${filters}\`)…`,
  });
  // Slack accepts five posts per response_url: the start, at most three progress edits (at a
  // quarter, half and three quarters of the pages, and at least a second apart) and the end.
  let progressLeft = 3;
  let nextMark = 0.25;
  let lastUpdate = deps.now();
  try {
    const result = await exportTransactions(
      deps.wallet,
      query,
      async (p) => {
        const done = p.page / Math.max(p.totalPages, 1);
        if (progressLeft === 0 || done >= 1 || done < nextMark || deps.now() - lastUpdate < 1_000) return;
        progressLeft--;
        while (nextMark <= done) nextMark += 0.25;
        lastUpdate = deps.now();
        await respond({
          replace_original: true,
          text: `:hourglass_flowing_sand: Exporting… page ${p.page} of ${p.totalPages} (${p.records} of ${p.totalRecords} records)`,
        });
      },
      format,
      txFacts(deps, client),
    );
    const day = utcDay(deps.now());
    // A read that could not finish still gives its file, and says so wherever the file is named.
    const gap = result.incomplete;
    const filename = names.name({ raw, format, at: deps.now(), incomplete: Boolean(gap) });
    // The note may quote the wallet service's words: escaped as outside text.
    const mark = gap ? ` (${outside(gap, 400)})` : '';
    const warn = gap ? ` This file is ${outside(gap, 400)}: run the export again to get the rest.` : '';
    const short = gap ? outsidePlain(gap.replace(/ \(.*$/, '')) : '';
    const done = gap ? ':warning: Export finished, *incomplete*' : ':white_check_mark: Export finished';
    // client= found no address of that client: the empty file is explained, not left to puzzle over.
    const unknownClient =
      result.clientAddresses === 0
        ? `\nNo address of ${outside(query.client ?? '', 120)} is known to the app yet: it knows a client's addresses from \`/address\`, their confirmed deposits and their withdrawals.`
        : '';
    if (format === 'csv') {
      await client.files.uploadV2({
        channel_id: await dmChannel(client, userId),
        file: Buffer.from(result.csv, 'utf8'),
        filename,
        title: `Transactions export ${day} (${short || `${result.records} records`})`,
        initial_comment: `Transactions export: ${result.records} records, filters \`${filters}\`. Values in USD at the price of each transaction's date where the price source has one, else at today's price (\`value_usd_at\` says which).${warn}`,
      });
      return void (await respond({
        replace_original: true,
        text: `${done}: ${result.records} records in \`${filename}\`, sent to you in a direct message.${mark}${unknownClient}`,
      }));
    }
    const notes = accountingNotes(format, result);
    await client.files.uploadV2({
      channel_id: await dmChannel(client, userId),
      file: Buffer.from(result.csv, 'utf8'),
      filename,
      title: `Transactions export ${day} for ${FORMAT_NAMES[format]} (${result.lines} lines${short ? `, ${short}` : ''})`,
      initial_comment: `Transactions export for ${FORMAT_NAMES[format]}: ${result.exported} records in ${result.lines} lines, filters \`${filters}\`.${warn}${notes}`,
    });
    await respond({
      replace_original: true,
      text: `${done}: ${result.exported} records for ${FORMAT_NAMES[format]} in \`${filename}\`, sent to you in a direct message.${mark}${notes}${unknownClient}`,
    });
  } catch (err) {
    if (err instanceof ExportTooLargeError)
      return void (await respond({ replace_original: true, text: `:warning: ${outside(err.message, 500)}` }));
    throw err;
  }
}
