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
import type { Policy } from '../policy/schema.js';
import { collection } from '../store/collection.js';
import type { Store } from '../store/index.js';
import type { WalletClient } from '../wallet/client.js';
import { exportTransactions } from './export.js';
import { accountingNotes, type ExportFormat, FORMAT_NAMES } from './formats.js';

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
  policy: Policy;
  groups?: GroupResolver;
  slack: Pick<WebClient, 'files' | 'conversations'>;
  logger: Logger;
  now: () => number;
}

export interface MonthlyExports {
  /** Sends last month's export to every admin who has not had it yet. */
  runMonthly(): Promise<void>;
}

/** Last month in UTC, as "YYYY-MM" with its bounds (the `to` bound is the last millisecond). */
export function previousMonth(now: number): { month: string; from: Date; to: Date; words: string } {
  const d = new Date(now);
  const from = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  const to = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - 1);
  const month = from.toISOString().slice(0, 7);
  const words = from.toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return { month, from, to, words };
}

export function createMonthlyExports(o: MonthlyExportOptions): MonthlyExports {
  const log = o.logger.child({ component: 'monthly-export' });
  const { store } = o;

  /** The admins as user ids: groups expanded, "*" (everyone) ignored (nobody is DMed a file "to everyone"). */
  async function admins(): Promise<string[]> {
    const out = new Set<string>();
    for (const entry of o.policy.people.admins) {
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

  async function runMonthly(): Promise<void> {
    const format = o.policy.exports.monthly;
    if (format === 'off') return;
    const period = previousMonth(o.now());
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
    const open = store.find(
      MONTHLY_EXPORTS,
      (r) => r.month === period.month && (r.state === 'pending' || r.state === 'uploading'),
    );
    if (!open.length) return;
    // One read of the month per format (all admins' deliveries share one unless the policy changed between runs).
    const files = new Map<ExportFormat, { csv: string; comment: string; filename: string }>();
    const build = async (f: ExportFormat) => {
      const r = await exportTransactions(
        o.wallet,
        { from: period.from, to: period.to, page: 1, pageSize: 100 },
        undefined,
        f,
      );
      const notes = f === 'csv' ? '' : accountingNotes(f, r);
      return {
        csv: r.csv,
        filename: `transactions-${period.month}${f === 'csv' ? '' : `-${f}`}.csv`,
        comment: `Last month's transactions (${period.words}, UTC) for ${FORMAT_NAMES[f]}: ${f === 'csv' ? r.records : r.exported} rows. Sent on the first of each month to the admins; \`/tx export\` makes others.${notes}`,
      };
    };
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
          continue;
        }
        const file = files.get(rec.format) ?? (await build(rec.format));
        files.set(rec.format, file);
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
        log.warn({ err, month: rec.month }, 'the monthly export to an admin failed; it is retried at the next run');
        await update(rec.key, { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  return { runMonthly };
}
