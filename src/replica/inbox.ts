/**
 * The webhook inbox: what a standby accepts while another replica leads. A notification is
 * written to `webhook_inbox` (durable before the 2xx, deduplicated by its body) and the leader
 * drains it through its own webhook route, so it is checked, stored and alerted exactly as if
 * the service had sent it there; the row goes only once the route has answered for it.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../log.js';

export interface InboxItem {
  /** The path secret it arrived with (the URL is the credential; the route checks it again). */
  secret: string;
  body: string;
  headers: Record<string, string>;
}

/** The same notification delivered twice is one row. */
export function inboxKey(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Writes one item (committed when this resolves); false when it was already there. */
export async function putInbox(db: pg.Pool, item: InboxItem): Promise<boolean> {
  const r = await db.query('INSERT INTO webhook_inbox (key, item) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
    inboxKey(item.body),
    JSON.stringify(item),
  ]);
  return r.rowCount === 1;
}

/**
 * Posts each waiting item to the leader's own webhook route, oldest first, and deletes it once
 * answered (any answer but a 5xx or no answer: a refusal would be refused again). `query` runs
 * on the leader's fenced connection.
 */
export async function drainInbox(o: {
  query: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;
  webhookUrl: (secret: string) => string;
  logger: Logger;
}): Promise<number> {
  const { rows } = await o.query<{ key: string; item: InboxItem }>(
    'SELECT key, item FROM webhook_inbox ORDER BY seq LIMIT 100',
  );
  let done = 0;
  for (const { key, item } of rows) {
    let status: number;
    try {
      const res = await fetch(o.webhookUrl(item.secret), {
        method: 'POST',
        headers: { ...item.headers, 'content-type': 'application/json' },
        body: item.body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (err) {
      o.logger.warn({ err }, 'inbox: the webhook route did not answer; kept for the next round');
      break;
    }
    if (status >= 500) {
      o.logger.warn({ status }, 'inbox: the webhook route could not take a notification now; kept for the next round');
      break;
    }
    if (status !== 200)
      o.logger.warn({ status }, 'inbox: a notification taken by the standby was refused by the route');
    await o.query('DELETE FROM webhook_inbox WHERE key = $1', [key]);
    done++;
  }
  return done;
}
