/**
 * /tx [filters]: one page of transactions, with Previous/Next buttons that replace the
 * message in place; /tx export [filters]: every matching record as a CSV file.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { refusal } from '../src/slack/access.js';
import { actions, context, header, link, packLines, section, shorten, LIMITS } from '../src/slack/blocks.js';
import { dmChannel, guarded } from '../src/slack/guard.js';
import { cut, echo } from '../src/slack/limits.js';
import { words } from '../src/slack/text.js';
import { describeFilters, fromRaw, parseFilters, FILTER_HELP, FILTER_KEYS, type RawFilters, type TxQuery } from '../src/transactions/filters.js';
import { exportTransactions, ExportTooLargeError } from '../src/transactions/export.js';
import type { TransactionPage, TransactionRecord } from '../src/wallet/schemas.js';
import type { CommandDeps } from './deps.js';

export const name = '/tx';
export const NAV_ACTIONS = { prev: 'tx_prev', next: 'tx_next' } as const;
/** Longer than any sensible filter list (ten filters with 128-character hashes fit). */
const MAX_TEXT = 2_000;
/** As many as there are filter keys: a person fixing a command sees every problem of it. */
const MAX_ERRORS = 10;
const USAGE = `Usage: \`/tx [${FILTER_HELP}]\` or \`/tx export [filters]\``;

const TYPE_ICON: Record<TransactionRecord['type'], string> = { deposit: ':inbox_tray:', withdrawal: ':outbox_tray:', unknown: ':grey_question:' };
const STATUS_TEXT: Record<TransactionRecord['status'], string> = {
  successful: ':white_check_mark: successful',
  failed: ':x: failed',
  unknown: ':grey_question: unknown status',
};

function when(r: TransactionRecord): string {
  const d = r.timestamp ?? (r.createdAt ? new Date(`${r.createdAt.replace(/Z?$/, 'Z')}`) : undefined);
  return d && !Number.isNaN(d.getTime()) ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'time unknown';
}

export function recordLine(r: TransactionRecord): string {
  const typeName = r.type === 'unknown' ? 'Transaction' : r.type[0]!.toUpperCase() + r.type.slice(1);
  const cur = r.currency?.name ?? r.currencyName;
  const net = r.network?.name ?? r.networkName;
  const from = r.fromAddress ? link(r.fromAddressUrl, shorten(r.fromAddress)) : '?';
  const to = r.toAddress ? link(r.toAddressUrl, shorten(r.toAddress)) : '?';
  const hash = r.hash ? ` · tx ${link(r.hashUrl, shorten(r.hash, 8, 6))}` : '';
  return `${TYPE_ICON[r.type]} *${typeName}* · *${r.amount} ${cur}* · ${net} · ${STATUS_TEXT[r.status]}\n      ${from} → ${to}${hash} · ${when(r)}`;
}

/** What a Previous/Next button carries: the filters as typed, and the page to show. */
const navValueSchema = z.object({
  f: z.partialRecord(z.enum(FILTER_KEYS), z.string()),
  p: z.number().int().min(1),
});

function navValue(raw: RawFilters, page: number): string {
  return JSON.stringify({ f: { ...raw, page: undefined }, p: page });
}

export function renderPage(raw: RawFilters, q: TxQuery, page: TransactionPage) {
  const filters = describeFilters(raw);
  const blocks = [header('Transactions')];
  if (page.totalRecords === 0) {
    blocks.push(section(`No transactions match${filters === 'none' ? '' : ` the filters \`${filters}\``}.`));
    blocks.push(context('Try fewer filters, a wider date range (from=YYYY-MM-DD to=YYYY-MM-DD), or check the spelling of a hash or address.'));
    return { text: 'No transactions match.', blocks };
  }
  blocks.push(
    context(`Page ${page.currentPage} of ${page.totalPages} · ${page.totalRecords} record${page.totalRecords === 1 ? '' : 's'} · filters: \`${filters}\``),
  );
  if (page.records.length === 0) {
    blocks.push(section(`Page ${q.page} is past the end: there ${page.totalPages === 1 ? 'is 1 page' : `are ${page.totalPages} pages`}.`));
  } else {
    // Header, context and buttons take three blocks; the rest is packed so even 100 records fit.
    blocks.push(...packLines(page.records.map(recordLine)).slice(0, LIMITS.blocks - 3));
  }
  const nav = [];
  const current = Math.min(page.currentPage, Math.max(page.totalPages, 1));
  if (current > 1) nav.push({ text: '← Previous', actionId: NAV_ACTIONS.prev, value: navValue(raw, current - 1) });
  if (current < page.totalPages) nav.push({ text: 'Next →', actionId: NAV_ACTIONS.next, value: navValue(raw, current + 1) });
  if (nav.length) blocks.push(actions('tx_nav', nav));
  return { text: `Transactions: page ${page.currentPage} of ${page.totalPages}, ${page.totalRecords} records`, blocks };
}

async function showPage(deps: CommandDeps, raw: RawFilters, q: TxQuery) {
  const { page: p, pageSize, ...filters } = q;
  const page = await deps.wallet.listTransactions({ ...filters, page: p, pageSize });
  return renderPage(raw, q, page);
}

export function register(app: App, deps: CommandDeps): void {
  app.command(name, async ({ command, ack, respond, client }) => {
    await ack();
    const w = words(command.text);
    const isExport = w[0]?.toLowerCase() === 'export';
    await guarded(deps.logger, respond, isExport ? 'Transaction export' : 'Transaction lookup', async () => {
      const refused = await refusal(deps.policy, 'viewers', command.user_id, deps.groups);
      if (refused) return void (await respond({ response_type: 'ephemeral', text: refused }));
      // Ten filters fit in a few hundred characters; a wall of text is refused without echoing it back.
      if (command.text.length > MAX_TEXT) {
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: That is ${command.text.length.toLocaleString('en')} characters; \`/tx\` takes at most ${MAX_TEXT} (a few key=value filters).\n${USAGE}`,
        }));
      }
      const parsed = parseFilters(isExport ? w.slice(1) : w);
      if (!parsed.ok) {
        // Each quoted piece of the person's input is echoed short, on one line, escaped.
        const shown = parsed.errors.slice(0, MAX_ERRORS).map((e) => cut(e.replace(/“([^”]*)”/g, (_m, q: string) => `“${echo(q)}”`), 600));
        const rest = parsed.errors.length - shown.length;
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: ${shown.join('\n:warning: ')}${rest > 0 ? `\n…and ${rest} more` : ''}\n${USAGE}`,
        }));
      }
      if (!isExport) {
        return void (await respond({ response_type: 'ephemeral', ...(await showPage(deps, parsed.raw, parsed.query)) }));
      }
      const filters = describeFilters(parsed.raw);
      await respond({ response_type: 'ephemeral', text: `:hourglass_flowing_sand: Exporting transactions (filters: \`${filters}\`)…` });
      // Slack accepts five posts per response_url: the start, at most three progress edits (at a
      // quarter, half and three quarters of the pages, and at least a second apart) and the end.
      let progressLeft = 3;
      let nextMark = 0.25;
      let lastUpdate = deps.now();
      try {
        const result = await exportTransactions(deps.wallet, parsed.query, async (p) => {
          const done = p.page / Math.max(p.totalPages, 1);
          if (progressLeft === 0 || done >= 1 || done < nextMark || deps.now() - lastUpdate < 1_000) return;
          progressLeft--;
          while (nextMark <= done) nextMark += 0.25;
          lastUpdate = deps.now();
          await respond({
            replace_original: true,
            text: `:hourglass_flowing_sand: Exporting… page ${p.page} of ${p.totalPages} (${p.records} of ${p.totalRecords} records)`,
          });
        });
        const day = new Date(deps.now()).toISOString().slice(0, 10);
        const filename = `transactions-${day}.csv`;
        await client.files.uploadV2({
          channel_id: await dmChannel(client, command.user_id),
          file: Buffer.from(result.csv, 'utf8'),
          filename,
          title: `Transactions export ${day} (${result.records} records)`,
          initial_comment: `Transactions export: ${result.records} records, filters \`${filters}\`.`,
        });
        await respond({
          replace_original: true,
          text: `:white_check_mark: Export finished: ${result.records} records in \`${filename}\`, sent to you in a direct message.`,
        });
      } catch (err) {
        if (err instanceof ExportTooLargeError) return void (await respond({ replace_original: true, text: `:warning: ${err.message}` }));
        throw err;
      }
    });
  });

  app.action<BlockAction<ButtonAction>>(new RegExp(`^(${NAV_ACTIONS.prev}|${NAV_ACTIONS.next})$`), async ({ ack, body, action, respond }) => {
    await ack();
    await guarded(deps.logger, respond, 'Transaction lookup', async () => {
      const refused = await refusal(deps.policy, 'viewers', body.user.id, deps.groups);
      if (refused) return void (await respond({ response_type: 'ephemeral', replace_original: false, text: refused }));
      let nav: z.infer<typeof navValueSchema>;
      try {
        nav = navValueSchema.parse(JSON.parse(action.value ?? ''));
      } catch {
        return void (await respond({ replace_original: false, text: ':warning: That button is out of date; run `/tx` again.' }));
      }
      const parsed = fromRaw({ ...nav.f, page: String(nav.p) });
      if (!parsed.ok) return void (await respond({ replace_original: false, text: `:warning: ${parsed.errors.join('; ')}` }));
      await respond({ replace_original: true, ...(await showPage(deps, parsed.raw, parsed.query)) });
    });
  });
}
