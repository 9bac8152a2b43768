/**
 * Where the metrics meet the app: the gauges' readings of its state (read at scrape time, so
 * a scrape costs a pass over the pending outbox entries and withdrawals, nothing at record
 * time), and the small recorders the parts call (withdrawal outcomes, an alert in Slack, a
 * Slack Web API call). The parts themselves only hold a one-line hook each.
 */
import { ALERT_BATCH_RENDERER, ALERT_RENDERER } from '../alerts/ingest.js';
import { cronSlots } from '../schedule/slots.js';
import type { Scheduler } from '../jobs/scheduler.js';
import { COLLECTIONS } from '../outbox/types.js';
import type { OutboxEntry } from '../outbox/types.js';
import type { Policy } from '../policy/schema.js';
import type { Reads, Store } from '../store/index.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import type { WithdrawalEvent } from '../withdrawals/types.js';
import { label, type Metrics, type OUTBOX_LANES, type SLACK_OUTCOMES } from './registry.js';
import type { PolicySource } from '../policy/source.js';

type Lane = (typeof OUTBOX_LANES)[number];

/** A lane's role: approvals and alert channels as the policy names them, never an id. */
export function laneRole(lane: string, policy: Policy | undefined): Lane {
  if (lane.startsWith('dm:')) return 'dm';
  if (lane === 'files') return 'files';
  if (!policy) return 'other';
  if (lane === policy.channels.approvals) return 'approvals';
  if (lane === policy.channels.alerts) return 'alerts';
  if (policy.channels.routes?.some((r) => r.channel === lane)) return 'routed';
  return 'other';
}

export function attachSources(
  m: Metrics,
  o: {
    store: Pick<Store, 'find' | 'get' | 'health' | 'counts'>;
    policy: PolicySource;
    freezeActive: () => boolean;
    scheduler: Pick<Scheduler, 'status'>;
    now: () => number;
  },
): void {
  m.sources.outbox = () => {
    const pending: Partial<Record<Lane, number>> = {};
    let oldest = Number.POSITIVE_INFINITY;
    const policy = o.policy.current();
    for (const e of o.store.find(COLLECTIONS.entries, (x) => x.state === 'pending')) {
      const role = laneRole(e.lane, policy);
      pending[role] = (pending[role] ?? 0) + 1;
      oldest = Math.min(oldest, e.createdAt);
    }
    return { pending, oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (o.now() - oldest) / 1000) : 0 };
  };
  m.sources.withdrawalsPending = () => o.store.find(WITHDRAWALS, (r) => r.state === 'pending').length;
  m.sources.storeWritable = () => o.store.health().writable;
  m.sources.storeRecords = () => o.store.counts();
  m.sources.freezeActive = o.freezeActive;
  // Job names come from the app's own job table, a fixed set.
  const lastOk = new Map<string, number>();
  m.sources.jobs = () =>
    o.scheduler.status().map((s) => {
      const last = s.last;
      if (last?.outcome === 'ok' && last.endedAt !== undefined) lastOk.set(s.name, last.endedAt / 1000);
      // Failing since a restart: its last success is not kept, but was before `failingSince`.
      const lastSuccess =
        lastOk.get(s.name) ?? (last?.failingSince !== undefined ? last.failingSince / 1000 : undefined);
      return { job: s.name, lastSuccess, intervalSeconds: interval(s.schedule, s.timezone, o.now()) };
    });
}

function interval(schedule: string, timezone: string, at: number): number | undefined {
  try {
    const slots = cronSlots(schedule, timezone);
    const a = slots.next(at);
    return (slots.next(a) - a) / 1000;
  } catch {
    return undefined;
  }
}

/** The withdrawal service's change listener (inside the change's commit): outcomes and approval waits. */
export function withdrawalRecorder(m: Metrics): (event: WithdrawalEvent) => void {
  const outcomes: Partial<Record<WithdrawalEvent['type'], string>> = {
    completed: 'sent',
    failed: 'failed',
    rejected: 'rejected',
    expired: 'expired',
    unknown: 'unknown',
  };
  return ({ type, request }) => {
    const outcome = outcomes[type];
    if (outcome) m.withdrawals.inc({ outcome });
    if (type === 'approved') {
      const last = Math.max(...request.approvals.map((a) => Date.parse(a.at)));
      const wait = (last - Date.parse(request.createdAt)) / 1000;
      if (Number.isFinite(wait) && wait >= 0) m.approvalWait.observe(wait);
    }
  };
}

/**
 * The outbox's hook after an entry is in Slack: an alert's delay from its webhook (the entry is
 * enqueued in the webhook's own commit, so its createdAt is when the webhook was received). A
 * batch message observes each alert it carries.
 */
export function alertDelayRecorder(m: Metrics, store: Reads, now: () => number): (entry: OutboxEntry) => void {
  return (entry) => {
    if (entry.op !== 'post') return;
    if (entry.renderer === ALERT_RENDERER) m.alertDelay.observe((now() - entry.createdAt) / 1000);
    if (entry.renderer === ALERT_BATCH_RENDERER) {
      for (const member of store.get(COLLECTIONS.batches, entry.ref)?.members ?? []) {
        const e = store.get(COLLECTIONS.entries, member.entryId);
        if (e) m.alertDelay.observe((now() - e.createdAt) / 1000);
      }
    }
  };
}

/** The Slack Web API methods the app calls; anything else (a response_url) counts as "other". */
const SLACK_METHODS = [
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'chat.delete',
  'chat.getPermalink',
  'conversations.open',
  'conversations.history',
  'conversations.replies',
  'files.getUploadURLExternal',
  'files.completeUploadExternal',
  'files.delete',
  'usergroups.users.list',
  'users.info',
  'users.list',
  'views.open',
  'views.update',
  'views.push',
  'views.publish',
  'auth.test',
] as const;

type Fetch = typeof globalThis.fetch;

/** Statuses whose response has no body (a Response cannot be built with one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** Slack's own `ok` of a Web API answer; undefined when the text is not such an answer. */
function slackOk(text: string): unknown {
  try {
    return (JSON.parse(text) as { ok?: unknown } | null)?.ok;
  } catch {
    return undefined;
  }
}

/** Counts each Web API call by method and outcome: Slack's `ok: false` is an error, a 429 its own outcome. */
export function countingFetch(m: Metrics, base: Fetch): Fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = label(url.split('?')[0]!.split('/').pop(), SLACK_METHODS);
    const count = (outcome: (typeof SLACK_OUTCOMES)[number]) => m.slackApiCalls.inc({ method, outcome });
    let res: Response;
    try {
      res = await base(input, init);
    } catch (err) {
      count('network_error');
      throw err;
    }
    if (res.status === 429) count('rate_limited');
    else if (!res.ok) count('error');
    else if (NULL_BODY.has(res.status) || !res.headers.get('content-type')?.includes('json')) count('ok');
    else {
      // Read once, and the caller gets the same text in a fresh Response: a clone tees the body's
      // stream, which cost more than the rest of the call (bench/slack-ack.bench.ts's profile).
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        count('network_error');
        throw err;
      }
      count(slackOk(text) === false ? 'error' : 'ok');
      // The text is decoded: the length and encoding of the bytes on the wire no longer describe it.
      const headers = new Headers(res.headers);
      headers.delete('content-encoding');
      headers.delete('content-length');
      return new Response(text, { status: res.status, statusText: res.statusText, headers });
    }
    return res;
  };
}
