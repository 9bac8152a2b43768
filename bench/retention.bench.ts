/**
 * The store after 100,000 deposits, before and after retention: bytes on disk (state file +
 * journal) and open time (snapshot + replay, median of 3). Each deposit is what the app keeps
 * for one: its alert, the webhook event with its raw body, the delivered outbox entry and the
 * message record. The deposits are spread evenly over the last 100 days, next to 1,000
 * withdrawal requests and their audit entries (never pruned); retention is the default 30
 * days, so about 70% of the deposits go. The "before" figure is each metric's same-run
 * baseline, so the ratio reads directly as "after / before". The prune's own duration is
 * reported too.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ALERT_COLLECTIONS, type Alert, type StoredEvent } from '../src/alerts/types.js';
import { appendAudit } from '../src/audit/log.js';
import { Retention } from '../src/jobs/retention.js';
import { createLogger } from '../src/log.js';
import { COLLECTIONS as OUTBOX, type OutboxEntry } from '../src/outbox/types.js';
import { openStore, type Store } from '../src/store/index.js';
import { collection } from '../src/store/collection.js';
import { makeTempDir, percentile, removeDir, result, timed, type Bench, type BenchResult } from './lib.js';
import { fixedPolicy } from '../src/policy/source.js';

const DEPOSITS = 100_000;
const WITHDRAWALS = 1_000;
const SPAN_DAYS = 100;
const RETENTION_DAYS = 30;
const BATCH = 1_000;
const OPENS = 3;
const DAY = 86_400_000;
/** The withdrawals collection, by its persisted name (the bench's records are loose on purpose). */
const REQUESTS = collection<Record<string, unknown>>('withdrawals');

function deposit(i: number, at: number): { alert: Alert; event: StoredEvent; entry: OutboxEntry } {
  const id = `dep_${i.toString(36).padStart(8, '0')}`;
  const hash = `0x${i.toString(16).padStart(64, '0')}`;
  const messageKey = `alert:${id}`;
  const fields = {
    kind: 'deposit' as const,
    typeName: 'Deposit',
    hash,
    amount: `${(i % 10_000) + 1}.25`,
    charge: '0.5',
    totalAmount: `${(i % 10_000) + 1}.75`,
    currency: 'USDT',
    network: 'BSC',
    clientEmail: `client${i % 500}@example.com`,
    receiveAddress: `0x${(i * 7).toString(16).padStart(40, '0')}`,
    depositAddress: `0x${(i * 13).toString(16).padStart(40, '0')}`,
  };
  const alert: Alert = {
    id,
    ...fields,
    status: 'CONFIRMED',
    channel: 'C0ALERTS',
    mention: false,
    source: 'webhook',
    verification: { state: 'confirmed', attempts: 1, checkedAt: at },
    history: [{ status: 'CONFIRMED', at, source: 'webhook', applied: true, eventId: `ev_${id}` }],
    messageKey,
    createdAt: at,
    updatedAt: at,
  };
  const event: StoredEvent = {
    id: `ev_${id}`,
    alertId: id,
    source: 'webhook',
    receivedAt: at,
    raw: JSON.stringify({
      TransactionType: 1,
      Data: {
        ...fields,
        Status: 'Confirmed',
        Checksum: 'A'.repeat(128),
        MerchantClient: { Email: fields.clientEmail },
      },
    }),
    event: { ...fields, statusName: 'CONFIRMED', currencyKnown: true, networkKnown: true, extra: {}, body: null },
  };
  const entry: OutboxEntry = {
    id: `ob_${id}`,
    op: 'post',
    renderer: 'alert',
    ref: id,
    key: messageKey,
    channel: 'C0ALERTS',
    order: i,
    lane: 'C0ALERTS',
    state: 'done',
    createdAt: at,
    attempts: 1,
    sentAt: at,
    result: { channel: 'C0ALERTS', ts: `${Math.floor(at / 1000)}.${String(i % 1e6).padStart(6, '0')}` },
    finishedAt: at,
  };
  return { alert, event, entry };
}

async function fill(dir: string, now: number): Promise<void> {
  const store = await openStore({ dir });
  try {
    for (let start = 0; start < DEPOSITS; start += BATCH) {
      await store.commit((tx) => {
        for (let i = start; i < Math.min(DEPOSITS, start + BATCH); i++) {
          const at = now - Math.floor(((DEPOSITS - i) / DEPOSITS) * SPAN_DAYS * DAY);
          const { alert, event, entry } = deposit(i, at);
          tx.put(ALERT_COLLECTIONS.alerts, alert.id, alert);
          tx.put(ALERT_COLLECTIONS.events, event.id, event);
          tx.put(OUTBOX.entries, entry.id, entry);
          tx.put(OUTBOX.messages, alert.messageKey, {
            key: alert.messageKey,
            lane: 'C0ALERTS',
            entryId: entry.id,
            channel: 'C0ALERTS',
            ts: entry.result!.ts!,
          });
        }
      });
    }
    await store.commit((tx) => {
      for (let i = 0; i < WITHDRAWALS; i++) {
        const id = `wd_${i}`;
        tx.put(REQUESTS, id, { id, state: 'completed', amount: '100.5', currency: 'USDT', requester: 'U0ALICE' });
        appendAudit(tx, { actor: 'U0ALICE', action: 'request', subject: id, details: { amount: '100.5' } });
      }
    });
  } finally {
    await store.close();
  }
}

async function measure(dir: string): Promise<{ bytes: number; openMs: number; records: number }> {
  let bytes = 0;
  for (const f of ['state.json', 'journal.jsonl'])
    bytes += await fs.stat(path.join(dir, f)).then(
      (s) => s.size,
      () => 0,
    );
  const times: number[] = [];
  let records = 0;
  for (let i = 0; i < OPENS; i++) {
    const { ms, result: store } = await timed(() => openStore({ dir }));
    records = store.stats().records;
    times.push(ms);
    await store.close();
  }
  return { bytes, openMs: percentile(times, 50), records };
}

const bench: Bench = {
  name: 'retention',
  description: `store size and open time after ${DEPOSITS.toLocaleString('en-US')} deposits, before and after ${RETENTION_DAYS}-day retention`,
  async run(): Promise<BenchResult[]> {
    const dir = await makeTempDir('bench-retention');
    try {
      const now = Date.now();
      await fill(dir, now);
      const before = await measure(dir);
      let store: Store | undefined = await openStore({ dir });
      const retention = new Retention({
        store,
        logger: createLogger({ level: 'silent' }),
        now: () => now,
        policy: fixedPolicy({ retention: { days: RETENTION_DAYS } }),
      });
      const pruned = await timed(() => retention.prune());
      await store.close();
      store = undefined;
      const after = await measure(dir);
      const c = `${DEPOSITS / 1000}k deposits over ${SPAN_DAYS} days`;
      return [
        result({
          bench: 'retention',
          case: c,
          metric: 'bytes on disk after pruning (baseline: before)',
          value: after.bytes,
          unit: 'bytes',
          baseline: before.bytes,
          better: 'lower',
        }),
        result({
          bench: 'retention',
          case: c,
          metric: 'open p50 after pruning (baseline: before)',
          value: after.openMs,
          unit: 'ms',
          baseline: before.openMs,
          better: 'lower',
        }),
        result({
          bench: 'retention',
          case: c,
          metric: 'records after pruning (baseline: before)',
          value: after.records,
          unit: 'records',
          baseline: before.records,
          better: 'lower',
        }),
        result({
          bench: 'retention',
          case: c,
          metric: `prune + compaction time (${pruned.result.alerts} alerts pruned)`,
          value: pruned.ms,
          unit: 'ms',
        }),
      ];
    } finally {
      await removeDir(dir);
    }
  },
};

export default bench;
