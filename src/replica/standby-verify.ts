/**
 * The wallet service's verification callback on a standby (GET /webhooks/wallet/:secret/verify):
 * during a failover the service may ask a replica that does not lead yet, and refusing there
 * would make it refuse a withdrawal the quorum approved. The standby reads the request and the
 * freeze from PostgreSQL (a claim for sending is committed before its send, so the database
 * holds every claim the leader acted on) and answers with the leader's own decision
 * (src/verification/decide.ts). Its audit entry is written to `verification_inbox` before the
 * answer; the leader appends it to the audit log (drainVerifications) with the time of the call.
 * The admins' notice of a refused call is raised only by the leader's route (it needs the outbox).
 * A destination on the sanctions list is refused here too: the list the leader keeps in the store
 * (`screening_list`, written by its refresh in the same database), or the bundled snapshot when the
 * leader has not read one yet. The other rules (limits, stale list, provider) are the leader's.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import { secretMatches } from '../alerts/signature.js';
import { appendAudit } from '../audit/log.js';
import { FREEZES } from '../freeze/state.js';
import { sendJson } from '../http/server.js';
import type { Logger } from '../log.js';
import { collection, type Reads, type Store } from '../store/index.js';
import { judgeVerification, parseVerificationQuery, verificationAudit } from '../verification/decide.js';
import { WITHDRAWALS } from '../withdrawals/index.js';
import { isListed, makeList, type SanctionsList } from '../screening/list.js';
import { loadBundled } from '../screening/load.js';
import { SCREENING_LIST } from '../screening/service.js';
import { listName } from '../screening/words.js';

/** An audit entry a standby wrote, as the leader appends it. */
interface StandbyAudit {
  at: string;
  subject: string;
  details: Record<string, unknown>;
}

/** Keys of the standby's entries already in the audit log: taking one twice appends it once. */
const TAKEN = collection<{ at: string }>('standby_verifications');

/**
 * The records the decision reads, from the database: the withdrawal asked about and every freeze.
 * No json operator runs over the withdrawals (`value->>…` fails the whole query when any row's
 * json holds `\u0000`, which a webhook's text may carry): the text search narrows the rows, and the
 * reference is matched on the parsed values here.
 */
async function readFacts(db: pg.Pool, reference: string): Promise<Reads> {
  const { rows } = await db.query<{ collection: string; value: unknown }>(
    `SELECT collection, value FROM store_records
      WHERE (collection = $1 AND strpos(value::text, $2) > 0) OR collection = $3 OR collection = $4
      ORDER BY ord`,
    [WITHDRAWALS, JSON.stringify(reference), FREEZES, SCREENING_LIST],
  );
  const matches = (r: { collection: string; value: unknown }) =>
    r.collection !== WITHDRAWALS || (r.value as { merchantReference?: unknown }).merchantReference === reference;
  const kept = rows.filter(matches);
  const all = (c: string) => kept.filter((r) => r.collection === c).map((r) => r.value);
  return {
    all: ((c: string) => all(c)) as Reads['all'],
    get: (() => undefined) as Reads['get'],
  };
}

/** The sanctions list the leader keeps in the store, else the bundled snapshot (read once). */
let bundled: Promise<SanctionsList> | undefined;
async function sanctionsList(facts: Reads): Promise<SanctionsList> {
  const [kept] = facts.all(SCREENING_LIST);
  if (kept && Array.isArray(kept.addresses)) return makeList(kept.addresses, kept);
  bundled ??= loadBundled({ now: Date.now });
  return bundled;
}

/** The sanctions rule as the leader words it at the send: the standby refuses what the leader would. */
function sanctionsRule(list: SanctionsList) {
  return (r: { destination: string }) =>
    isListed(list, r.destination)
      ? `the destination ${r.destination} is now on ${listName(list)}: nothing may be sent to it`
      : undefined;
}

export function standbyVerification(o: {
  db: pg.Pool;
  secrets: () => Promise<string[]>;
  secretKey: string;
  logger: Logger;
}) {
  return async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> => {
    const q = parseVerificationQuery(req.url);
    let facts: Reads;
    let accepted: string[];
    try {
      accepted = await o.secrets();
    } catch (err) {
      o.logger.warn({ err }, 'standby: could not read the database for a verification call');
      return sendJson(res, 503, { error: 'unavailable, retry' });
    }
    // The secret first: an unauthenticated caller costs one constant-time compare, never a read
    // of the withdrawals (the time it takes says nothing about them either).
    if (!secretMatches(params.secret ?? '', accepted)) {
      o.logger.warn({ route: '/webhooks/wallet/:secret/verify' }, 'verification call with a wrong secret refused');
      return sendJson(res, 404, { error: 'not found' });
    }
    let list: SanctionsList;
    try {
      facts = await readFacts(o.db, q.reference);
      list = await sanctionsList(facts);
    } catch (err) {
      o.logger.warn({ err }, 'standby: could not read the database for a verification call');
      return sendJson(res, 503, { error: 'unavailable, retry' });
    }
    const judged = judgeVerification(facts, q, o.secretKey, sanctionsRule(list));
    const entry: StandbyAudit = { at: new Date().toISOString(), ...verificationAudit(q, judged) };
    try {
      await o.db.query('INSERT INTO verification_inbox (key, item) VALUES ($1, $2)', [
        randomUUID(),
        JSON.stringify(entry),
      ]);
    } catch (err) {
      // As on the leader: an approved withdrawal is not refused for a write that failed.
      o.logger.error(
        { err, merchantReference: q.reference || null, verdict: judged.v.reason },
        'verification call answered but could not be written for the audit log',
      );
    }
    o.logger.info({ verified: judged.answer.isVerified }, 'standby: wallet service verification call answered');
    sendJson(res, 200, judged.answer);
  };
}

/**
 * The leader appends the entries standbys wrote to its audit log, oldest first, then deletes
 * them. A crash between the two appends nothing twice: each key is recorded in the same commit.
 */
export async function drainVerifications(o: {
  query: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;
  store: Store;
}): Promise<number> {
  const { rows } = await o.query<{ key: string; item: StandbyAudit }>(
    'SELECT key, item FROM verification_inbox ORDER BY seq LIMIT 100',
  );
  if (rows.length === 0) return 0;
  await o.store.commit((tx) => {
    for (const { key, item } of rows) {
      if (tx.get(TAKEN, key)) continue;
      appendAudit(tx, {
        at: item.at,
        actor: 'system',
        action: 'verification',
        subject: item.subject,
        details: { ...item.details, answeredBy: 'standby' },
      });
      tx.put(TAKEN, key, { at: item.at });
    }
  });
  await o.query('DELETE FROM verification_inbox WHERE key = ANY($1)', [rows.map((r) => r.key)]);
  return rows.length;
}
