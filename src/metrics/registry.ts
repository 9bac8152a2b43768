/**
 * The app's Prometheus metrics: one registry per app instance (tests run several apps in one
 * process, so prom-client's global default registry would collide), handed to the parts that
 * record. Recording is a counter increment or a histogram observation; every gauge is read
 * from the app's state by a collect() callback at scrape time (`sources`), so nothing has to
 * keep a gauge in step with the state it mirrors.
 *
 * Labels come only from fixed sets (`label()` maps anything else to "other"): a reference, an
 * address, a user or free text as a label would make an unbounded number of series and could
 * leak what the logs are careful not to show.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRIC_KINDS } from '../alert-kinds.js';

/** One label per alert kind, from the table of kinds (src/alert-kinds.ts); refusals count as 'unknown'. */
export const WEBHOOK_KINDS = METRIC_KINDS;
export const WEBHOOK_OUTCOMES = [
  'created',
  'advanced',
  'recorded',
  'duplicate',
  'unauthorized',
  'invalid',
  'unavailable',
  'error',
] as const;
export const WITHDRAWAL_OUTCOMES = ['sent', 'failed', 'rejected', 'expired', 'unknown'] as const;
export const SLACK_OUTCOMES = ['ok', 'error', 'rate_limited', 'network_error'] as const;
export const VERIFICATION_ANSWERS = ['true', 'false', 'refused', 'error'] as const;
/** Lanes by role, never by channel or user id. */
export const OUTBOX_LANES = ['approvals', 'alerts', 'routed', 'dm', 'files', 'other'] as const;

/** `value` if it is one of `allowed`, else "other". */
export function label<T extends string>(value: unknown, allowed: readonly T[]): T | 'other' {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : 'other';
}

/** What the gauges read at scrape time; filled in by the app once its parts exist. */
export interface MetricSources {
  outbox?: () => { pending: Partial<Record<(typeof OUTBOX_LANES)[number], number>>; oldestAgeSeconds: number };
  withdrawalsPending?: () => number;
  storeWritable?: () => boolean;
  /** Records per collection (the store's counts()): what the app keeps, history included. */
  storeRecords?: () => Record<string, number> | Promise<Record<string, number>>;
  freezeActive?: () => boolean;
  /** Per job (names from the job table): last success (Unix seconds) and the interval of its schedule. */
  jobs?: () => Array<{ job: string; lastSuccess?: number; intervalSeconds?: number }>;
  /** This replica's role: `standby` until it leads (the embedded store always leads). */
  role?: () => (typeof REPLICA_ROLES)[number];
  /** With PostgreSQL: the database as this replica sees it at the scrape (replica.ts). */
  database?: () => Promise<DatabaseReading>;
}

export const REPLICA_ROLES = ['leader', 'standby'] as const;

/** One look at the database from this replica (unreachable: the inbox figures of the last look, aged). */
export interface DatabaseReading {
  reachable: boolean;
  inboxPending: number;
  /** Age of the oldest inbox row still waiting for the leader (0 when none waits). */
  inboxOldestAgeSeconds: number;
  inboxRefused: number;
}

export type Metrics = ReturnType<typeof createMetrics>;

let processRegistry: Registry | undefined;

/**
 * The process's own metrics (CPU, memory, event-loop delay, GC), collected once per process:
 * they describe the process, not an app. prom-client's GC metric starts a performance observer
 * that is never stopped and holds the registry it was given; given each app's registry, it kept
 * every stopped app (its store, its outbox) in memory for the life of the process, one more
 * after each test or bench round.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * `database`: the app runs on PostgreSQL, so the database and inbox gauges exist (with the
 * embedded store they would only be constant series that mean nothing).
 */
export function createMetrics(o: { database?: boolean } = {}) {
  const own = new Registry();
  const registers = [own];
  const sources: MetricSources = {};

  const metrics = {
    /** What /metrics serves (the merge at the end): the process's metrics and this app's, which nothing global holds. */
    registry: own,
    sources,
    webhooksReceived: new Counter({
      name: 'treasury_webhooks_received_total',
      help: 'Wallet webhooks received, by event kind and outcome (refusals have kind "unknown").',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    }),
    alertDelay: new Histogram({
      name: 'treasury_alert_delay_seconds',
      help: 'From a webhook received to its alert posted in Slack (alone or as a line of a batch message).',
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    slackApiCalls: new Counter({
      name: 'treasury_slack_api_calls_total',
      help: 'Slack Web API calls made by the app, by method and outcome (429 is rate_limited).',
      labelNames: ['method', 'outcome'] as const,
      registers,
    }),
    withdrawals: new Counter({
      name: 'treasury_withdrawals_total',
      help: 'Withdrawal requests reaching an outcome: sent (completed), failed, rejected, expired, unknown.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    approvalWait: new Histogram({
      name: 'treasury_approval_wait_seconds',
      help: 'From a withdrawal request to its last approval.',
      buckets: [30, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400],
      registers,
    }),
    walletRequests: new Counter({
      name: 'treasury_wallet_requests_total',
      help: 'Wallet service operations, by operation and outcome (ok, or the kind of failure).',
      labelNames: ['operation', 'outcome'] as const,
      registers,
    }),
    walletRequestDuration: new Histogram({
      name: 'treasury_wallet_request_duration_seconds',
      help: 'Duration of wallet service operations, retries and session refreshes included.',
      labelNames: ['operation'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
    storeCommitDuration: new Histogram({
      name: 'treasury_store_commit_duration_seconds',
      help: 'From a store commit to its durability (journal written and synced).',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    }),
    verificationCallbacks: new Counter({
      name: 'treasury_verification_callbacks_total',
      help: "The wallet service's withdrawal verification calls, by answer (refused: wrong secret or malformed).",
      labelNames: ['answer'] as const,
      registers,
    }),
  };

  new Gauge({
    name: 'treasury_outbox_pending',
    help: 'Outbox entries waiting to be sent to Slack, by lane (the role of its channel).',
    labelNames: ['lane'] as const,
    registers,
    collect() {
      this.reset();
      const o = sources.outbox?.();
      for (const lane of OUTBOX_LANES) this.set({ lane }, o?.pending[lane] ?? 0);
    },
  });
  new Gauge({
    name: 'treasury_outbox_oldest_age_seconds',
    help: 'Age of the oldest outbox entry still waiting (0 when none waits).',
    registers,
    collect() {
      this.set(sources.outbox?.().oldestAgeSeconds ?? 0);
    },
  });
  new Gauge({
    name: 'treasury_withdrawals_pending',
    help: 'Withdrawal requests waiting for approvals.',
    registers,
    collect() {
      this.set(sources.withdrawalsPending?.() ?? 0);
    },
  });
  new Gauge({
    name: 'treasury_store_writable',
    help: '1 while the store takes writes, 0 while it refuses them (disk full, I/O errors).',
    registers,
    collect() {
      this.set(sources.storeWritable?.() === false ? 0 : 1);
    },
  });
  new Gauge({
    name: 'treasury_store_records',
    help: "Records the store holds, by collection (sum them for the total the embedded store's ceiling is stated in).",
    // By collection, not only the total: it says what grows (the audit log and withdrawals for
    // ever, the outbox and alerts until pruned), and collection names are the app's own, a
    // fixed set declared in code, never data.
    labelNames: ['collection'] as const,
    registers,
    async collect() {
      const counts = (await sources.storeRecords?.()) ?? {};
      this.reset();
      for (const [collection, n] of Object.entries(counts)) this.set({ collection }, n);
    },
  });
  new Gauge({
    name: 'treasury_freeze_active',
    help: '1 while sends are frozen (/treasury freeze), else 0.',
    registers,
    collect() {
      this.set(sources.freezeActive?.() ? 1 : 0);
    },
  });
  const lastSuccess = new Gauge({
    name: 'treasury_job_last_success_timestamp_seconds',
    help: 'When each scheduled job last ended without error (Unix seconds).',
    labelNames: ['job'] as const,
    registers: [],
  });
  new Gauge({
    name: 'treasury_job_interval_seconds',
    help: "The time between two runs of a job's schedule (for alerting on a job without success).",
    labelNames: ['job'] as const,
    registers,
    // One read of the scheduler fills both job gauges; this one is registered first, so its
    // collect runs before the other is written out (prom-client collects in registration order).
    collect() {
      this.reset();
      lastSuccess.reset();
      for (const j of sources.jobs?.() ?? []) {
        if (j.lastSuccess !== undefined) lastSuccess.set({ job: j.job }, j.lastSuccess);
        if (j.intervalSeconds !== undefined) this.set({ job: j.job }, j.intervalSeconds);
      }
    },
  });
  own.registerMetric(lastSuccess);
  new Gauge({
    name: 'treasury_replica_role',
    help: "1 for this replica's role (leader or standby), 0 for the other. The embedded store always leads.",
    labelNames: ['role'] as const,
    registers,
    collect() {
      const role = sources.role?.() ?? 'standby';
      for (const r of REPLICA_ROLES) this.set({ role: r }, r === role ? 1 : 0);
    },
  });
  if (o.database) databaseGauges(registers, sources);
  // merge() copies the metrics registered so far: every metric of the app is registered above.
  metrics.registry = Registry.merge([processMetrics(), own]);
  return metrics;
}

/**
 * One read of the database per scrape fills the four gauges. prom-client collects a scrape's
 * metrics concurrently, so the four share the read in flight (single-flight), and the next
 * scrape reads again.
 */
function databaseGauges(registers: Registry[], sources: MetricSources): void {
  const none: DatabaseReading = { reachable: false, inboxPending: 0, inboxOldestAgeSeconds: 0, inboxRefused: 0 };
  let inFlight: Promise<DatabaseReading> | undefined;
  const read = (): Promise<DatabaseReading> => {
    inFlight ??= (sources.database?.() ?? Promise.resolve(none)).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const gauge = (name: string, help: string, value: (r: DatabaseReading) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(value(await read()));
      },
    });
  gauge(
    'treasury_database_up',
    'With PostgreSQL: 1 when this replica reached the database at this scrape, 0 when it could not.',
    (r) => (r.reachable ? 1 : 0),
  );
  gauge(
    'treasury_inbox_pending',
    'With PostgreSQL: webhooks a standby took into the inbox that the leader has not taken in yet.',
    (r) => r.inboxPending,
  );
  gauge(
    'treasury_inbox_oldest_age_seconds',
    'With PostgreSQL: age of the oldest webhook waiting in the inbox (0 when none waits).',
    (r) => r.inboxOldestAgeSeconds,
  );
  gauge(
    'treasury_inbox_refused',
    'With PostgreSQL: inbox webhooks the leader refused, kept in webhook_inbox (acknowledged, never alerted).',
    (r) => r.inboxRefused,
  );
}

/** Every metric name the app defines (the rules test checks the alert rules against it). */
export async function metricNames(m: Metrics): Promise<string[]> {
  return (await m.registry.getMetricsAsJSON()).map((x) => x.name);
}
