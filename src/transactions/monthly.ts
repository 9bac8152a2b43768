/**
 * The monthly export: on the first day of each month, last month's transactions in the
 * policy's `exports.monthly` format (`off`: none) are sent to each admin by DM, once per month
 * and admin whatever restarts happen.
 *
 * Each delivery is a record keyed by month and admin: `pending` → `uploading` (written before
 * the upload goes out) → `sent`. An `uploading` found later (a crash, a lost answer) is first
 * looked up in the admin's DM: a file with the export's title means it landed. The policy is
 * read at the moment of use (it can change at run time).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import type { GroupResolver } from '../policy/people.js';
import { collection } from '../store/collection.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { dayIn, type SlotTime } from '../schedule/slots.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import { allowlistPayee } from './booking.js';
import { clientBook } from './clients.js';
import { exportTransactions } from './export.js';
import { notificationFees } from './fee.js';
import { ALERT_COLLECTIONS } from '../alerts/types.js';
import { slackNames } from './names.js';
import { accountingNotes, type ExportFormat, FORMAT_NAMES } from './formats.js';
import type { PolicySource } from '../policy/source.js';
import type { DayPrices } from '../prices/day-prices.js';
import type { PriceSnapshot } from '../prices/types.js';

export interface MonthlyDelivery {
  key: string;
  /** "2026-10" (UTC). */
  month: string;
  user: string;
  format: ExportFormat;
  state: 'pending' | 'uploading' | 'sent' | 'failed';
  attempts: number;
  markedAt?: number;
  title: string;
  error?: string;
}

export const MONTHLY_EXPORTS = collection<MonthlyDelivery>('monthly_exports');

const MAX_ATTEMPTS = 3;

export interface MonthlyExportOptions {
  store: Store;
  wallet: WalletClient;
  policy: PolicySource;
  groups?: GroupResolver;
  /** `users`: the names of requesters and approvers in the file. */
  slack: Pick<WebClient, 'files' | 'conversations' | 'users'>;
  logger: Logger;
  now: () => number;
  /** The price cache at the run: the plain CSV's value_usd where no date price can be had. */
  prices?: () => PriceSnapshot;
  /** Prices of past days: the plain CSV values each movement at its date's price, as `/tx export` does. */
  days?: DayPrices;
}

export interface MonthlyExports {
  /**
   * Sends last month's export to every admin who has not had it yet, and retries those of
   * earlier months still open. "Last month" is the month before the slot's month in its zone
   * (default: now, UTC). Throws after trying them all if any delivery failed.
   */
  runMonthly(at?: SlotTime): Promise<void>;
}

/**
 * The month before the one `now` falls in, in `timezone` (default UTC), as "YYYY-MM" with its
 * bounds in UTC (the `to` bound is the last millisecond): the export covers a UTC month, but which
 * month is "last month" is decided where the job fires.
 */
export function previousMonth(now: number, timezone = 'UTC'): { month: string; from: Date; to: Date; words: string } {
  const [y, m] = dayIn(now, timezone).split('-').map(Number) as [number, number];
  const from = new Date(Date.UTC(y, m - 2, 1));
  const to = new Date(Date.UTC(y, m - 1, 1) - 1);
  const month = from.toISOString().slice(0, 7);
  const words = from.toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return { month, from, to, words };
}

/** A "YYYY-MM" month's UTC bounds and its name for people. */
function periodOf(month: string): { from: Date; to: Date; words: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const from = new Date(Date.UTC(y, m - 1, 1));
  const to = new Date(Date.UTC(y, m, 1) - 1);
  return { from, to, words: from.toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }) };
}

export function createMonthlyExports(o: MonthlyExportOptions): MonthlyExports {
  const log = o.logger.child({ component: 'monthly-export' });
  const { store } = o;

  /** The admins as user ids: groups expanded, "*" (everyone) ignored (nobody is DMed a file "to everyone"). */
  async function admins(): Promise<string[]> {
    const out = new Set<string>();
    for (const entry of o.policy.current().people.admins) {
      if (entry === '*') continue;
      if (entry.startsWith('S')) {
        if (!o.groups) continue;
        try {
          for (const u of await o.groups.membersOf(entry)) out.add(u);
        } catch (err) {
          log.warn({ err }, 'could not read the members of an admin user group; they get the export next run');
        }
      } else out.add(entry);
    }
    return [...out];
  }

  async function update(key: string, patch: Partial<MonthlyDelivery>): Promise<void> {
    await store.commit((t) => {
      const rec = t.get(MONTHLY_EXPORTS, key);
      if (rec) t.put(MONTHLY_EXPORTS, key, { ...rec, ...patch });
    });
  }

  async function dm(user: string): Promise<string> {
    const res = await o.slack.conversations.open({ users: user });
    if (!res.channel?.id) throw new Error('Slack did not open a DM channel');
    return res.channel.id;
  }

  async function landed(rec: MonthlyDelivery, channel: string): Promise<boolean> {
    const res = await o.slack.conversations.history({
      channel,
      oldest: (((rec.markedAt ?? 0) - 60_000) / 1000).toFixed(6),
      limit: 200,
    });
    return (res.messages ?? []).some((m) => m.files?.some((f) => f.title === rec.title));
  }

  async function runMonthly(at?: SlotTime): Promise<void> {
    const format = o.policy.current().exports.monthly;
    if (format === 'off') return;
    const period = previousMonth(at?.slot ?? o.now(), at?.timezone);
    const users = await admins();
    await store.commit((t) => {
      for (const user of users) {
        const key = `${period.month}:${user}`;
        if (t.get(MONTHLY_EXPORTS, key)) continue;
        t.put(MONTHLY_EXPORTS, key, {
          key,
          month: period.month,
          user,
          format,
          state: 'pending',
          attempts: 0,
          title: `Transactions of ${period.words} (${FORMAT_NAMES[format]})`,
        });
      }
    });
    // This month's and any earlier month's left open by a failed run (oldest first).
    const open = store
      .find(MONTHLY_EXPORTS, (r) => r.state === 'pending' || r.state === 'uploading')
      .sort((a, b) => a.month.localeCompare(b.month));
    // A delivery of this month given up stays a failed run (no "works again" notice while it is missing).
    const givenUp = () => store.find(MONTHLY_EXPORTS, (r) => r.month === period.month && r.state === 'failed');
    if (!open.length) {
      if (givenUp().length)
        throw new Error(
          `the export of ${period.words} could not be sent to ${givenUp().length} admin(s) and was given up; \`/tx export\` makes it by hand`,
        );
      return;
    }
    // One read per month and format (all admins' deliveries share one unless the policy changed between runs).
    const files = new Map<string, { csv: string; comment: string; filename: string }>();
    const build = async (month: string, f: ExportFormat) => {
      const p = periodOf(month);
      // page/pageSize are the query's shape only: the export pages by the service's totals.
      const requests = store.all(WITHDRAWALS);
      const r = await exportTransactions(o.wallet, { from: p.from, to: p.to, page: 1, pageSize: 1 }, undefined, f, {
        requests,
        book: clientBook(store, requests),
        payeeOf: allowlistPayee(o.policy.current().withdrawals.allowlist.addresses),
        names: slackNames(o.slack),
        notified: notificationFees(store.all(ALERT_COLLECTIONS.alerts)),
        // The same valuation as `/tx export` (commands/tx/facts.ts): without it the file's
        // value_usd and value_usd_at were blank with no word of why.
        ...(o.prices ? { prices: o.prices() } : {}),
        ...(o.days ? { days: o.days } : {}),
        // Last month's requests may have left memory (src/history/: 45 days after closing): read from history.
        closedRequests: (references) => store.history.findAny(WITHDRAWALS, 'merchantReference', references),
      });
      // A month's file that misses records is not sent as if it were the month: the delivery is
      // retried (and, given up, says why), and `/tx export` can make it by hand meanwhile.
      if (r.incomplete) throw new Error(`the export of ${p.words} could not be read in full (${r.incomplete})`);
      const notes = f === 'csv' ? '' : accountingNotes(f, r);
      return {
        csv: r.csv,
        filename: `transactions-${month}${f === 'csv' ? '' : `-${f}`}.csv`,
        comment: `Last month's transactions (${p.words}, UTC) for ${FORMAT_NAMES[f]}: ${f === 'csv' ? r.records : r.exported} rows. Sent on the first of each month to the admins; \`/tx export\` makes others.${notes}`,
      };
    };
    const failed: string[] = [];
    for (const rec of open) {
      try {
        const channel = await dm(rec.user);
        if (rec.state === 'uploading' && (await landed(rec, channel))) {
          await update(rec.key, { state: 'sent' });
          continue;
        }
        if (rec.attempts >= MAX_ATTEMPTS) {
          log.error(
            { month: rec.month, error: rec.error },
            'the monthly export could not be sent to an admin; giving up',
          );
          await update(rec.key, { state: 'failed' });
          failed.push(`${rec.month}: given up after ${rec.attempts} attempts (${rec.error ?? 'unknown error'})`);
          continue;
        }
        const fileKey = `${rec.month}:${rec.format}`;
        const file = files.get(fileKey) ?? (await build(rec.month, rec.format));
        files.set(fileKey, file);
        await update(rec.key, { state: 'uploading', attempts: rec.attempts + 1, markedAt: o.now() });
        await o.slack.files.uploadV2({
          channel_id: channel,
          file: Buffer.from(file.csv, 'utf8'),
          filename: file.filename,
          title: rec.title,
          initial_comment: file.comment,
        });
        await update(rec.key, { state: 'sent' });
      } catch (err) {
        // An `uploading` stays so: the next run looks in the DM first, so a lost answer is never a second file.
        const message = err instanceof Error ? err.message : String(err);
        log.warn({ err, month: rec.month }, 'the monthly export to an admin failed; it is retried');
        await update(rec.key, { error: message });
        failed.push(`${rec.month}: ${message}`);
      }
    }
    // The scheduler warns once and retries the slot; the records say who still needs theirs.
    if (failed.length)
      throw new Error(`the monthly export could not be sent to ${failed.length} admin(s): ${failed.join('; ')}`);
  }

  return { runMonthly };
}
