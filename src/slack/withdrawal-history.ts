/**
 * What a withdrawal's Slack side leaves behind and takes out of memory after it (issue 42): the
 * card's message records (the card, its thread, its DMs) and its permalink. They exist only to
 * edit and link that card, and a request that left memory (src/history/rules.ts: closed for 45
 * days) is never edited again; on PostgreSQL they stay in the database, cold, like the request.
 * Run as a row of the history table after the requests' own row (the app adds it): a record
 * whose request is still in memory stays, and a message whose delivery still waits stays.
 */
import { COLLECTIONS as OUTBOX } from '../outbox/types.js';
import type { Store } from '../store/index.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import { CARD_LINKS } from './withdrawal-notify.js';
import { cardKey } from './withdrawal/index.js';

const PREFIX = cardKey('');
/** Evicts per commit, as the table's other rows. */
const CHUNK = 2_000;

/** The request a message key belongs to: its card, or a key under it (thread, DMs). */
export function cardOwner(key: string): string | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const id = key.slice(PREFIX.length).split(':')[0];
  return id || undefined;
}

/** Moves the card records of requests no longer in memory; returns how many left memory. */
export async function moveCardRecords(store: Store): Promise<number> {
  if (!store.evicts) return 0;
  const gone = (id: string) => store.get(WITHDRAWALS, id) === undefined;
  const keys = store
    .all(OUTBOX.messages)
    .filter((m) => {
      const owner = cardOwner(m.key);
      return owner !== undefined && gone(owner);
    })
    .map((m) => m.key);
  let moved = 0;
  for (let i = 0; i < keys.length; i += CHUNK) {
    const slice = keys.slice(i, i + CHUNK);
    moved += await store.commit((tx) => {
      let n = 0;
      for (const key of slice) {
        const m = tx.get(OUTBOX.messages, key);
        const owner = m && cardOwner(m.key);
        // Read again inside the commit: a request back in memory, or a message still to be delivered, keeps it.
        if (!m || !owner || tx.get(WITHDRAWALS, owner)) continue;
        const entry = tx.get(OUTBOX.entries, m.entryId);
        if (entry && entry.state !== 'done') continue;
        tx.evict(OUTBOX.messages, key);
        n++;
        if (key === cardKey(owner) && tx.get(CARD_LINKS, owner)) {
          tx.evict(CARD_LINKS, owner);
          n++;
        }
      }
      return n;
    });
  }
  return moved;
}
