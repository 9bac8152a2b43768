import { pageSizeOf } from '../wallet/pager.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { gatherInto, redrawFlood, startFlood } from './notices.js';
import { normalizeHash } from './parse.js';
import { judge, overdue, type Listed } from './claims.js';
import { KIND_RULES } from '../alert-kinds.js';
import { applyHistory, flagUnconfirmed, isClaim, shownState } from './posting.js';
import { isTerminal } from './status.js';
import { ALERT_COLLECTIONS, type Alert } from './types.js';
import { listedOf, verifyAlert, type VerifyDeps } from './verify.js';

export interface SweepOptions {
  intervalMs?: number;
  idleIntervalMs?: number;
  overlapMs?: number;
  lookbackMs?: number;
  pageSize?: number;
  maxPages?: number;
  /** A sweep that started this long after a claim arrived and did not show it counts as a miss. */
  listLagMs?: number;
  floodThreshold?: number;
  floodWindowMs?: number;
  hashLookupsPerSweep?: number;
  /** A claim gets its look-up by hash (budget permitting) once this old. */
  hashLookupAfterMs?: number;
  /** Records remembered from earlier sweeps. */
  seenMax?: number;
}

const FRESH_MS = 2 * 60_000;
const MAX_AGE_MS = 24 * 3_600_000;

interface Waiting {
  createdAt: number;
  channel: string;
  /** When a sweep first missed it (started listLagMs or more after it arrived). */
  missedAt?: number;
}

export interface Sweeper {
  /** A new or changed deposit alert to settle (a sweep follows soon). */
  request(alertId: string): void;
  /** Sweeps now (the job, tests). */
  sweep(): Promise<void>;
  /** List calls made so far (bench). */
  calls(): number;
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createSweeper(deps: VerifyDeps, o: SweepOptions = {}): Sweeper {
  const log = deps.logger.child({ module: 'alert-sweep' });
  const now = deps.now ?? Date.now;
  const opt = {
    intervalMs: o.intervalMs ?? 1_000,
    idleIntervalMs: o.idleIntervalMs ?? 15_000,
    overlapMs: o.overlapMs ?? 3_000,
    lookbackMs: o.lookbackMs ?? 2 * 60_000,
    // The page size the service is known to accept (WALLET_PAGE_SIZE): the service's own totalPages follow it.
    pageSize: pageSizeOf(deps.wallet, o.pageSize),
    maxPages: Math.max(2, o.maxPages ?? 6),
    listLagMs: o.listLagMs ?? 2_000,
    floodThreshold: o.floodThreshold ?? 6,
    floodWindowMs: o.floodWindowMs ?? 2 * 60_000,
    hashLookupsPerSweep: o.hashLookupsPerSweep ?? 1,
    hashLookupAfterMs: o.hashLookupAfterMs ?? 10_000,
    seenMax: o.seenMax ?? 50_000,
  };
  const waiting = new Map<string, Waiting>();
  const seen = new Map<string, Listed>();
  let cursor: number | undefined;
  let lastSweepAt = 0;
  let listCalls = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running: Promise<void> | undefined;
  /** A request arrived that no sweep has served yet. */
  let due = false;
  let stopped = false;

  const unsettled = (a: Alert) => a.verification.state !== 'confirmed' && a.verification.state !== 'contradicted';

  // What a previous process left waiting (the grace and the flood count go on from the store's times).
  for (const a of deps.store.find(
    ALERT_COLLECTIONS.alerts,
    (x) => KIND_RULES[x.kind].checkedBy === 'sweep' && !!x.hash && unsettled(x) && now() - x.createdAt <= MAX_AGE_MS,
  ))
    waiting.set(a.id, { createdAt: a.createdAt, channel: a.channel });

  function remember(rec: TransactionRecord): void {
    if (!rec.hash || rec.type === 'withdrawal') return;
    const key = normalizeHash(rec.hash);
    seen.delete(key);
    seen.set(key, listedOf(rec));
    if (seen.size > opt.seenMax) seen.delete(seen.keys().next().value!);
  }

  async function read(filter: { from: Date; to: Date; page: number }) {
    listCalls++;
    const res = await deps.wallet.listTransactions({ type: 'deposit', pageSize: opt.pageSize, ...filter });
    for (const r of res.records) remember(r);
    return res;
  }

  /** Reads the window; returns the cursor the next sweep starts from. */
  async function readWindow(t0: number): Promise<number> {
    let oldest = t0;
    for (const w of waiting.values()) oldest = Math.min(oldest, w.createdAt);
    let fromMs = cursor !== undefined ? cursor - opt.overlapMs : oldest - opt.lookbackMs;
    fromMs = Math.max(fromMs, t0 - MAX_AGE_MS);
    const from = new Date(fromMs);
    const to = new Date(t0);
    const first = await read({ from, to, page: 1 });
    const total = first.totalPages;
    if (total <= opt.maxPages) {
      for (let page = 2; page <= total; page++) await read({ from, to, page });
      return t0;
    }
    // Too much to read at once: the oldest pages now (with the newest, already read), the rest later.
    let upTo = fromMs;
    for (let page = total; page > total - (opt.maxPages - 1); page--) {
      const res = await read({ from, to, page });
      for (const r of res.records) if (r.timestamp) upTo = Math.max(upTo, r.timestamp.getTime());
    }
    return upTo;
  }

  async function lookUpByHash(t0: number): Promise<void> {
    if (opt.hashLookupsPerSweep <= 0) return;
    const candidates = [...waiting.entries()]
      .filter(([, w]) => t0 - w.createdAt >= opt.hashLookupAfterMs)
      .map(([id]) => deps.store.get(ALERT_COLLECTIONS.alerts, id))
      .filter((a): a is Alert => !!a && unsettled(a) && a.verification.attempts === 0 && isTerminal(a.status))
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, opt.hashLookupsPerSweep);
    for (const a of candidates) {
      listCalls++;
      const state = await verifyAlert(deps, a.id);
      if (state === 'confirmed' || state === 'contradicted') waiting.delete(a.id);
    }
  }

  async function sweepOnce(): Promise<void> {
    due = false;
    const t0 = now();
    lastSweepAt = t0;
    for (const [id, w] of waiting) if (t0 - w.createdAt > MAX_AGE_MS) waiting.delete(id);
    if (waiting.size === 0) return;
    cursor = await readWindow(t0);
    const policy = deps.policy.current();
    const graceMs = policy.alerts.verify_grace;
    const ctx = { outbox: deps.outbox, policy, now: t0, ...(deps.screening ? { screening: deps.screening } : {}) };
    await deps.store.commit((tx) => {
      const misses = new Map<string, string[]>();
      const floods = new Set<string>();
      for (const [id, w] of waiting) {
        const a = tx.get(ALERT_COLLECTIONS.alerts, id);
        if (!a?.hash || !unsettled(a)) {
          waiting.delete(id);
          continue;
        }
        const listed = seen.get(normalizeHash(a.hash));
        const verdict = listed ? judge(a, [listed]) : undefined;
        if (verdict?.kind === 'match' || verdict?.kind === 'mismatch') {
          applyHistory(tx, a, verdict, ctx);
          waiting.delete(id);
          continue;
        }
        if (w.missedAt === undefined && t0 - w.createdAt >= opt.listLagMs) {
          w.missedAt = t0;
          if (a.verification.state === 'unverified')
            tx.put(ALERT_COLLECTIONS.alerts, id, {
              ...a,
              verification: { ...a.verification, state: 'not_found', checkedAt: t0 },
            });
        }
        if (overdue(a, graceMs, t0)) flagUnconfirmed(tx, tx.get(ALERT_COLLECTIONS.alerts, id)!, graceMs, ctx);
        if (a.gathered) floods.add(a.gathered);
        if (w.missedAt !== undefined && isClaim(a) && isTerminal(a.status) && t0 - w.createdAt <= opt.floodWindowMs)
          misses.set(a.channel, [...(misses.get(a.channel) ?? []), id]);
      }
      for (const [channel, ids] of misses) {
        if (ids.length < opt.floodThreshold) continue;
        let flood = startFlood(tx, channel, ctx);
        floods.add(flood.key);
        // What still waits to be posted in this channel joins the summary instead.
        for (const [id, w] of waiting) {
          if (w.channel !== channel) continue;
          const a = tx.get(ALERT_COLLECTIONS.alerts, id)!;
          if (a.gathered || !isClaim(a) || shownState(tx, a.messageKey) !== 'waiting') continue;
          flood = gatherInto(tx, flood, t0);
          tx.put(ALERT_COLLECTIONS.alerts, id, { ...a, gathered: flood.key });
        }
      }
      for (const key of floods) redrawFlood(tx, key, deps.outbox);
    });
    deps.outbox.kick();
    await lookUpByHash(t0);
  }

  function run(): Promise<void> {
    if (running) return running;
    running = sweepOnce()
      .catch((err: unknown) => log.warn({ err }, 'could not sweep the transaction list; the next sweep tries again'))
      .finally(() => {
        running = undefined;
        schedule();
      });
    return running;
  }

  function schedule(): void {
    if (stopped || running) return;
    if (waiting.size === 0) {
      due = false;
      return;
    }
    const t = now();
    const fresh = due || [...waiting.values()].some((w) => t - w.createdAt < FRESH_MS);
    const at = lastSweepAt + (fresh ? opt.intervalMs : opt.idleIntervalMs);
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Infinity;
        void run();
      },
      Math.max(0, at - t),
    );
  }

  return {
    request(alertId) {
      const a = deps.store.get(ALERT_COLLECTIONS.alerts, alertId);
      if (!a?.hash || !unsettled(a)) return;
      if (!waiting.has(alertId)) waiting.set(alertId, { createdAt: a.createdAt, channel: a.channel });
      due = true;
      schedule();
    },
    sweep: () => (running ? running.then(run) : run()),
    calls: () => listCalls,
    async idle() {
      while (running || (due && !stopped)) {
        if (running) await running;
        else await new Promise((r) => setTimeout(r, 5));
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
