/**
 * The webhook inbox: what a standby accepts while another replica leads. A notification is
 * written to `webhook_inbox` (durable before the 2xx, deduplicated by its body) once the
 * standby has checked it as the leader's route would (src/alerts/webhook-body.ts), with a
 * priority: an event of a known kind drains ahead of one the parser does not recognise, so
 * junk never holds up a deposit. The row keeps a keyed hash of the path secret, never the
 * secret (inbox-secret.ts).
 *
 * The leader drains it in-process, no HTTP hop: a batch of rows is read in one query (by
 * priority, then arrival), checked again, ingested in one store commit (the same ingestion as
 * its webhook route), and only once that commit is durable are the rows deleted. A leader that
 * dies in between leaves the rows, and the next drain's ingestion finds their events already
 * stored: duplicates, one alert. The secret and the signature's time are not checked again (the
 * standby checked both when it acknowledged the row; a rotation or a slow drain must not lose
 * it). A body the leader still refuses is kept, set aside with the reason, never dropped.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { checkWebhookBody } from '../alerts/webhook-body.js';
import type { CheckedWebhook, WebhookIngest } from '../alerts/webhook-ingest.js';
import type { Logger } from '../log.js';
import { hashInboxSecret, inboxSecretMatches } from './inbox-secret.js';

/**
 * Rows per claim: one SELECT, one store commit, one settling transaction. Measured on 2 cores
 * (npm run bench inbox): larger batches cost more per row (1,000 took three times as long per row
 * as 250 to ingest in memory), smaller ones pay the round trips more often.
 */
export const DRAIN_BATCH = 250;
/** Batches per drain round, so the verification inbox beside it gets its turn under a steady flood. */
const MAX_BATCHES_PER_ROUND = 20;
/**
 * A row whose ingestion keeps failing (the same error each round) is set aside with its reason after
 * this many tries, as a refused one is: kept, logged, never dropped, and no longer ahead of the rows
 * behind it (they would wait for ever otherwise).
 */
export const MAX_INGEST_FAILURES = 5;
/** Failed tries per row, per leader (its ingestion): a new leader tries each row afresh. */
const failures = new WeakMap<WebhookIngest, Map<string, number>>();

export interface InboxItem {
  /** hashInboxSecret of the path secret it arrived with. */
  secretHash: string;
  body: string;
  headers: Record<string, string>;
}

/** A row written before the secret was hashed (schema version 3 and earlier): migrated by hashLegacyRows. */
type StoredItem = Partial<InboxItem> & { secret?: string; body: string; headers?: Record<string, string> };

/** The same notification delivered twice is one row. */
export function inboxKey(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Writes one item (committed when this resolves); false when it was already there. */
export async function putInbox(db: pg.Pool, item: InboxItem, priority: number): Promise<boolean> {
  const r = await db.query(
    'INSERT INTO webhook_inbox (key, item, priority) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
    [inboxKey(item.body), JSON.stringify(item), priority],
  );
  return r.rowCount === 1;
}

/** Runs on the leader's connection (LeaderSession.run). */
export type RunOnLeader = <T>(fn: (c: pg.ClientBase) => Promise<T>) => Promise<T>;

async function inTransaction<T>(run: RunOnLeader, fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
  return run(async (c) => {
    await c.query('BEGIN');
    try {
      const r = await fn(c);
      await c.query('COMMIT');
      return r;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    }
  });
}

/** Rewrites every row that still holds its secret in clear to the hashed form, in one transaction; how many. */
export async function hashLegacyRows(run: RunOnLeader, hashKey: Buffer): Promise<number> {
  return inTransaction(run, async (c) => {
    // Read as text and parsed here: a body may hold `\u0000`, which PostgreSQL's jsonb refuses.
    const { rows } = await c.query<{ key: string; item: string }>(
      `SELECT key, item::text AS item FROM webhook_inbox WHERE item::text LIKE '%"secret"%' FOR UPDATE`,
    );
    let n = 0;
    for (const r of rows) {
      const item = JSON.parse(r.item) as StoredItem;
      if (typeof item.secret !== 'string') continue;
      await c.query('UPDATE webhook_inbox SET item = $2 WHERE key = $1', [
        r.key,
        JSON.stringify(hashed(item, hashKey)),
      ]);
      n++;
    }
    return n;
  });
}

function hashed(item: StoredItem, hashKey: Buffer): InboxItem {
  const secretHash = item.secretHash ?? (typeof item.secret === 'string' ? hashInboxSecret(hashKey, item.secret) : '');
  return { secretHash, body: item.body, headers: item.headers ?? {} };
}

export interface DrainOptions {
  /** The leader's connection: the rows are read and settled there, between its store's commits. */
  run: RunOnLeader;
  /** The webhook route's ingestion (src/alerts/webhook-ingest.ts): resolves once durable. */
  ingest: WebhookIngest;
  hashKey: Buffer;
  /** The secrets the leader accepts now (only told apart in the log: the standby's check at acknowledgment stands). */
  accepted: () => readonly string[];
  logger: Logger;
  batch?: number;
}

interface Refused {
  key: string;
  reason: string;
  item: InboxItem;
}

/** Drains batches until the inbox is empty (or a round's share is done); how many rows were ingested. */
export async function drainInbox(o: DrainOptions): Promise<number> {
  const size = o.batch ?? DRAIN_BATCH;
  let done = 0;
  for (let i = 0; i < MAX_BATCHES_PER_ROUND; i++) {
    const r = await drainBatch(o, size);
    done += r.ingested;
    if (r.claimed < size || r.kept > 0) break;
  }
  return done;
}

async function drainBatch(o: DrainOptions, size: number): Promise<{ claimed: number; ingested: number; kept: number }> {
  const { rows } = await o.run((c) =>
    c.query<{ key: string; item: StoredItem }>(
      'SELECT key, item FROM webhook_inbox WHERE refused_at IS NULL ORDER BY priority, seq LIMIT $1',
      [size],
    ),
  );
  if (rows.length === 0) return { claimed: 0, ingested: 0, kept: 0 };
  const accepted = o.accepted();
  const checked: Array<CheckedWebhook & { key: string }> = [];
  const refused: Refused[] = [];
  let rotatedOut = 0;
  for (const { key, item: stored } of rows) {
    const item = hashed(stored, o.hashKey);
    // Every row was written by a standby after it checked the secret; one without a hash was not.
    if (!item.secretHash) {
      refused.push({ key, reason: 'no secret recorded at acknowledgment', item });
      continue;
    }
    if (!inboxSecretMatches(o.hashKey, item.secretHash, accepted)) rotatedOut++;
    const check = checkWebhookBody(item.body);
    if (check.ok) checked.push({ key, event: check.event, raw: item.body });
    else refused.push({ key, reason: `${check.status} ${check.error}`, item });
  }
  const { ingestedKeys, kept, duplicates, setAside } = await ingestAll(o, checked);
  for (const r of setAside) refused.push({ ...r, item: hashed(rows.find((x) => x.key === r.key)!.item, o.hashKey) });
  await inTransaction(o.run, async (c) => {
    // Not waited to disk: a delete lost in a database crash only drains those rows again, and
    // their events are then duplicates (one alert each); the ingestion itself was durable.
    await c.query('SET LOCAL synchronous_commit = off');
    if (ingestedKeys.length > 0) await c.query('DELETE FROM webhook_inbox WHERE key = ANY($1::text[])', [ingestedKeys]);
    if (refused.length > 0) {
      await c.query(
        `UPDATE webhook_inbox w SET refused_at = now(), refusal = v.reason, item = v.item::json
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(key, reason, item) WHERE w.key = v.key`,
        [refused.map((r) => r.key), refused.map((r) => r.reason), refused.map((r) => JSON.stringify(r.item))],
      );
    }
  });
  for (const r of refused) {
    o.logger.error(
      { inboxKey: r.key, reason: r.reason },
      'inbox: a notification the standby acknowledged was refused by the leader; kept in webhook_inbox, not alerted',
    );
  }
  o.logger.info(
    { claimed: rows.length, ingested: ingestedKeys.length, duplicates, refused: refused.length, kept, rotatedOut },
    'inbox: drained a batch',
  );
  return { claimed: rows.length, ingested: ingestedKeys.length, kept };
}

/**
 * One commit for the whole batch; when it fails (a withdrawal link that throws, say), one
 * commit each, so one bad row holds up only itself: a row whose commit fails stays for the
 * next round, as a 5xx from the route would leave it.
 */
async function ingestAll(
  o: DrainOptions,
  items: ReadonlyArray<CheckedWebhook & { key: string }>,
): Promise<{
  ingestedKeys: string[];
  kept: number;
  duplicates: number;
  setAside: Array<{ key: string; reason: string }>;
}> {
  if (items.length === 0) return { ingestedKeys: [], kept: 0, duplicates: 0, setAside: [] };
  try {
    const results = await o.ingest(items);
    const duplicates = results.filter((r) => r.outcome === 'duplicate').length;
    return { ingestedKeys: items.map((i) => i.key), kept: 0, duplicates, setAside: [] };
  } catch (err) {
    o.logger.warn({ err }, 'inbox: a batch could not be ingested at once; one by one');
  }
  const tries = failures.get(o.ingest) ?? new Map<string, number>();
  failures.set(o.ingest, tries);
  const ingestedKeys: string[] = [];
  const setAside: Array<{ key: string; reason: string }> = [];
  let duplicates = 0;
  for (const item of items) {
    try {
      const [r] = await o.ingest([item]);
      if (r?.outcome === 'duplicate') duplicates++;
      ingestedKeys.push(item.key);
      tries.delete(item.key);
    } catch (err) {
      const n = (tries.get(item.key) ?? 0) + 1;
      tries.set(item.key, n);
      if (n >= MAX_INGEST_FAILURES) {
        tries.delete(item.key);
        setAside.push({
          key: item.key,
          reason: `could not be ingested ${n} times: ${(err as Error).message ?? err}`.slice(0, 500),
        });
        continue;
      }
      o.logger.warn(
        { err, inboxKey: item.key, tries: n },
        'inbox: a notification could not be ingested now; kept for the next round',
      );
    }
  }
  return { ingestedKeys, kept: items.length - ingestedKeys.length - setAside.length, duplicates, setAside };
}
