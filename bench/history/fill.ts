/**
 * The history bench's fill: N closed withdrawals made from the template (template.ts: a few
 * withdrawals the real app requested, approved, sent and settled), each copy with fresh
 * references and its times moved into the past, written through the store's commit API in
 * large batches. Replicating is what makes 1M withdrawals fit the bench's budget; the records
 * are the app's own, and every audit entry is appended again with `appendAudit`, so the copy's
 * chain is a real chain (its hashes cover the new references and times).
 *
 * What a copy holds: the withdrawal, its audit entries, its card's permalink and its card's
 * message key: the records kept for ever. Its outbox entries, alerts and webhook events are
 * pruned after the retention window (`retention.days`, store.prune), so years of history hold none.
 *
 * Where the store evicts (PostgreSQL), the fill leaves history as the daily job leaves it
 * (src/history/rules.ts): in each fill commit, a withdrawal closed longer ago than the hot window
 * is evicted (a completed one folded into the paid summary first, as the job's rule does), and
 * so is every audit entry older than the audit's hot days, and the card records of an evicted
 * withdrawal (its message records and permalink). The embedded store keeps everything.
 */
import { appendAudit } from '../../src/audit/log.js';
import { AUDIT_RULE, type HistoryRule, WITHDRAWAL_RULE } from '../../src/history/rules.js';
import type { AuditAction } from '../../src/audit/actions.js';
import { collection, type Store, type Tx } from '../../src/store/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { cardOwner } from '../../src/slack/withdrawal-history.js';
import type { Template } from './template.js';

/** The collections a closed withdrawal keeps for ever (besides the audit log). */
const KEPT = ['withdrawals', 'withdrawal_card_links', 'outbox_messages'] as const;
const DAY_MS = 86_400_000;
/** The copies' times spread over this span, newest a day ago: years of a team's history. */
const SPAN_MS = 730 * DAY_MS;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

interface Group {
  records: Array<{ name: string; id: string; json: string }>;
  audit: Array<{ actor: string; action: AuditAction; subject: string; details: string; at: string }>;
  /** What names the withdrawal (id, merchant reference, the service's reference, the transaction). */
  tokens: string[];
}

export interface Fill {
  /** Records per withdrawal (audit entries included), from the template. */
  recordsPerWithdrawal: number;
  auditPerWithdrawal: number;
  /** Writes withdrawals [from, to) in commits of `batch`; `onBatch` after each durable commit. */
  write(
    store: Store,
    from: number,
    to: number,
    o?: { batch?: number; onBatch?: (done: number) => void; now?: number },
  ): Promise<void>;
  /** The merchant reference of withdrawal n (what `/treasury withdrawal` is given). */
  reference(n: number): string;
}

export function prepareFill(template: Template, ids: readonly string[], total: number, now = Date.now()): Fill {
  const all = (name: string) => template.get(name) ?? [];
  const groups: Group[] = ids.map((id) => {
    const w = all('withdrawals').find(([k]) => k === id)?.[1] as WithdrawalRequest | undefined;
    if (!w) throw new Error(`history fill: the template has no withdrawal ${id}`);
    const tokens = [id, w.merchantReference, w.result?.serviceReference, w.result?.transactionHash].filter(
      (t): t is string => typeof t === 'string' && t.length >= 16,
    );
    const records = KEPT.flatMap((name) =>
      all(name)
        .filter(([k, v]) => k.includes(id) || (name === 'withdrawals' ? false : JSON.stringify(v).includes(id)))
        .map(([k, v]) => ({ name, id: k, json: JSON.stringify(v) })),
    );
    const audit = all('audit')
      .map(
        ([, v]) =>
          v as { seq: number; actor: string; action: AuditAction; subject: string; details: object; at: string },
      )
      .filter((e) => e.subject === id || (e.details as { request?: unknown }).request === id)
      .sort((a, b) => a.seq - b.seq)
      .map((e) => ({
        actor: e.actor,
        action: e.action,
        subject: e.subject,
        details: JSON.stringify(e.details),
        at: e.at,
      }));
    return { records, audit, tokens };
  });
  const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = groups.map((g) => new RegExp(`${[...g.tokens.map(escaped), ISO.source].join('|')}`, 'g'));
  // Every copy's tokens end with its number (12 hex digits), so no two copies share a reference.
  const remap = (g: number, n: number, text: string, shift: number) =>
    text.replace(patterns[g]!, (m) =>
      ISO.test(m) && m.length === 24
        ? new Date(Date.parse(m) - shift).toISOString()
        : m.slice(0, -12) + n.toString(16).padStart(12, '0'),
    );
  const latest = Math.max(...groups.flatMap((g) => g.audit.map((e) => Date.parse(e.at))));
  // Withdrawal n's times: the oldest first, the newest a day before `now`.
  const shiftOf = (n: number) => latest - (now - DAY_MS - (SPAN_MS * (total - n)) / total);
  const auditPerWithdrawal = groups.reduce((a, g) => a + g.audit.length, 0) / groups.length;
  const recordsPerWithdrawal = groups.reduce((a, g) => a + g.records.length, 0) / groups.length + auditPerWithdrawal;
  const collections = new Map(KEPT.map((name) => [name, collection<unknown>(name)]));

  return {
    recordsPerWithdrawal,
    auditPerWithdrawal,
    reference(n) {
      const g = n % groups.length;
      const ref = groups[g]!.tokens[1]!;
      return ref.slice(0, -12) + n.toString(16).padStart(12, '0');
    },
    async write(store, from, to, o = {}) {
      const batch = o.batch ?? 500;
      const now = o.now ?? Date.now();
      // The daily job's rules, applied as each record is written (an evicting store only).
      const evict = <T>(tx: Tx, rule: HistoryRule<T>, v: T) => {
        if (!store.evicts || !rule.cold(v, now)) return;
        rule.onEvict?.(tx, v);
        tx.evict(rule.collection, rule.idOf(v));
      };
      for (let start = from; start < to; start += batch) {
        const end = Math.min(to, start + batch);
        await store.commit((tx) => {
          for (let n = start; n < end; n++) {
            const g = n % groups.length;
            const group = groups[g]!;
            const shift = shiftOf(n);
            const gone = new Set<string>();
            for (const r of group.records) {
              const value = JSON.parse(remap(g, n, r.json, shift));
              tx.put(collections.get(r.name as (typeof KEPT)[number])!, remap(g, n, r.id, shift), value);
              if (r.name !== 'withdrawals') continue;
              const w = value as WithdrawalRequest;
              evict(tx, WITHDRAWAL_RULE, w);
              // (An eviction applies when the commit does: a read in it still sees the record.)
              if (store.evicts && WITHDRAWAL_RULE.cold(w, now)) gone.add(w.id);
            }
            // Its card's records follow it out (src/slack/withdrawal-history.ts, the row the app adds to the table).
            for (const r of group.records) {
              const id = remap(g, n, r.id, shift);
              const owner =
                r.name === 'outbox_messages' ? cardOwner(id) : r.name === 'withdrawal_card_links' ? id : undefined;
              if (owner && gone.has(owner)) tx.evict(collections.get(r.name as (typeof KEPT)[number])!, id);
            }
            for (const e of group.audit) {
              const entry = appendAudit(tx, {
                actor: e.actor,
                action: e.action,
                subject: remap(g, n, e.subject, shift),
                details: JSON.parse(remap(g, n, e.details, shift)),
                at: remap(g, n, e.at, shift),
              });
              evict(tx, AUDIT_RULE, entry);
            }
          }
        });
        o.onBatch?.(end - from);
      }
    },
  };
}
