/**
 * The words of the scheduled jobs: the warning when a job starts failing, the notice when it
 * works again (both rendered from the notice the scheduler queued), and the jobs and store
 * lines of `/treasury status`.
 */
import type { KnownBlock } from '@slack/types';
import { z } from 'zod';
import { JOB_NOTICE_RENDERER } from '../jobs/notices.js';
import type { JobStatus } from '../jobs/scheduler.js';
import { scheduleWords } from '../schedule/words.js';
import { utcMinute } from '../format/time.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import { mention, packLines, section } from './blocks.js';
import { outside } from '../format/outside.js';

const noticeSchema = z.object({
  job: z.string(),
  title: z.string(),
  kind: z.enum(['failing', 'recovered']),
  at: z.number(),
  error: z.string().optional(),
  failingSince: z.number().optional(),
  failures: z.number().optional(),
  mention: z.array(z.string()).optional(),
});

export function renderJobNotice(ref: string): Rendered | null {
  let parsed: z.infer<typeof noticeSchema>;
  try {
    parsed = noticeSchema.parse(JSON.parse(ref));
  } catch {
    return null;
  }
  const n = parsed;
  const who = n.mention?.length ? `${n.mention.map((m) => mention(m)).join(' ')} ` : '';
  const text =
    n.kind === 'failing'
      ? `${who}:warning: The scheduled job *${outside(n.title)}* failed at ${utcMinute(n.at)}: ${outside((n.error ?? 'unknown error').replace(/\.+$/, ''))}. ` +
        'It keeps running on its schedule; further failures are logged, and one message will say when it works again.'
      : `${who}:white_check_mark: The scheduled job *${outside(n.title)}* works again (${utcMinute(n.at)}), ` +
        `after failing since ${utcMinute(n.failingSince)}${n.failures ? ` (${n.failures} failed run${n.failures === 1 ? '' : 's'})` : ''}.`;
  return { text, blocks: [section(text)] };
}

/** Call before `outbox.start()` (an entry with no renderer is parked). */
export function registerJobNoticeRenderer(outbox: Pick<Outbox, 'registerRenderer'>): void {
  outbox.registerRenderer(JOB_NOTICE_RENDERER, (ref) => renderJobNotice(ref));
}

function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** One line per job: its name, schedule and zone, last run (time, outcome, duration) and next run. */
export function jobStatusLines(jobs: JobStatus[]): string[] {
  return jobs.map((j) => {
    const l = j.last;
    const last =
      l?.outcome === undefined
        ? 'not run yet'
        : l.outcome === 'ok'
          ? `:large_green_circle: last run ${utcMinute(l.startedAt)}, succeeded in ${duration(l.durationMs)}`
          : `:red_circle: last run ${utcMinute(l.startedAt)}, failed after ${duration(l.durationMs)}: ${outside(l.error ?? '')}`;
    const running = j.running ? ' · running now' : '';
    const next = j.next !== undefined ? ` · next ${utcMinute(j.next)}` : '';
    return `*${outside(j.title)}* · ${outside(scheduleWords(j.schedule, j.timezone), 200)}\n${last}${running}${next}`;
  });
}

export function jobStatusBlocks(jobs: JobStatus[]): KnownBlock[] {
  const lines = jobStatusLines(jobs);
  return [section('*Scheduled jobs*'), ...packLines(lines.length ? lines : ['_No scheduled jobs._']).slice(0, 5)];
}

const COLLECTION_WORDS: Record<string, string> = {
  withdrawals: 'withdrawal requests',
  audit: 'audit entries',
  webhook_events: 'notifications',
  alerts: 'alerts',
  outbox: 'messages (sent and waiting)',
  job_runs: 'job records',
};

/** The store's size: bytes on disk (state file + journal) and record counts per collection. */
export function storeSizeLine(
  stats: { snapshotBytes: number; journalBytes: number; records: number },
  counts: Record<string, number>,
): string {
  const named = Object.entries(COLLECTION_WORDS)
    .filter(([c]) => counts[c])
    .map(([c, words]) => `${counts[c]} ${words}`);
  const others = Object.entries(counts)
    .filter(([c]) => !(c in COLLECTION_WORDS))
    .reduce((n, [, v]) => n + v, 0);
  if (others) named.push(`${others} other records`);
  return `${bytes(stats.snapshotBytes)} state file + ${bytes(stats.journalBytes)} journal; ${named.join(', ') || 'no records'}`;
}

function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}
