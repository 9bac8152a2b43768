/**
 * The webhook inbox: what a standby accepts while another replica leads. A notification is
 * written to `webhook_inbox` (durable before the 2xx, deduplicated by its body) and the leader
 * drains it through its own webhook route, so it is parsed, stored and alerted exactly as if
 * the service had sent it there; the row goes only once the route has ingested it. The route
 * does not check the path secret or the signature's time again for a drained item (the standby
 * checked both when it acknowledged it; a rotation or a slow drain must not lose it).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { INBOX_DRAIN_HEADER, INBOX_DRAIN_TOKEN } from '../alerts/receiver.js';
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
 * ingested (a 200). A 5xx or no answer keeps it for the next round. Any other answer (the body
 * was refused) keeps the row too, set aside with the reason and logged at error once: it was
 * acknowledged to the service, so it is never dropped silently. `query` runs on the leader's
 * fenced connection.
 */
export async function drainInbox(o: {
  query: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;
  webhookUrl: (secret: string) => string;
  logger: Logger;
}): Promise<number> {
  const { rows } = await o.query<{ key: string; item: InboxItem }>(
    'SELECT key, item FROM webhook_inbox WHERE refused_at IS NULL ORDER BY seq LIMIT 100',
  );
  let done = 0;
  for (const { key, item } of rows) {
    let status: number;
    let answer: string;
    try {
      const res = await fetch(o.webhookUrl(item.secret), {
        method: 'POST',
        headers: { ...item.headers, 'content-type': 'application/json', [INBOX_DRAIN_HEADER]: INBOX_DRAIN_TOKEN },
        body: item.body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      answer = (await res.text()).slice(0, 500);
    } catch (err) {
      o.logger.warn({ err }, 'inbox: the webhook route did not answer; kept for the next round');
      break;
    }
    if (status >= 500) {
      o.logger.warn({ status }, 'inbox: the webhook route could not take a notification now; kept for the next round');
      break;
    }
    if (status !== 200) {
      o.logger.error(
        { status, inboxKey: key, answer },
        'inbox: a notification the standby acknowledged was refused by the leader; kept in webhook_inbox, not alerted',
      );
      await o.query('UPDATE webhook_inbox SET refused_at = now(), refusal = $2 WHERE key = $1', [
        key,
        `${status} ${answer}`,
      ]);
      continue;
    }
    await o.query('DELETE FROM webhook_inbox WHERE key = $1', [key]);
    done++;
  }
  return done;
}
