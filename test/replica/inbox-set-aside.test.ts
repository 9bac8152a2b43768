/**
 * A row whose ingestion keeps failing (found by review: one poison row at the front of the
 * inbox, re-read every round, held up every row behind it) is set aside after
 * MAX_INGEST_FAILURES tries, with its reason, as a refused row is: kept, never dropped, and the
 * rows behind it drain. Real PostgreSQL; the drain as the leader runs it, with an ingestion that
 * refuses one body (the app's own never does on demand, so the failing one is the test's).
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestResult } from '../../src/alerts/ingest.js';
import type { WebhookIngest } from '../../src/alerts/webhook-ingest.js';
import { createLogger } from '../../src/log.js';
import { drainInbox, inboxKey, MAX_INGEST_FAILURES, putInbox } from '../../src/replica/inbox.js';
import { hashInboxSecret } from '../../src/replica/inbox-secret.js';
import { migrate } from '../../src/store/pg/schema.js';
import { depositSample } from '../alerts/setup.js';
import { createTestDatabase, pgAvailable, pgSkipReason } from '../helpers/pg.js';

const HASH_KEY = Buffer.alloc(32, 7);
const SECRET = 'whk_set_aside_test_secret_0123456789';

describe.skipIf(!pgAvailable)(`a row that cannot be ingested${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  let pool: pg.Pool;
  let client: pg.PoolClient;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createTestDatabase('inbox_aside') });
    client = await pool.connect();
    await migrate(client);
  }, 120_000);
  afterAll(async () => {
    client?.release();
    await pool?.end();
  });

  it('is set aside with its reason after a few tries, and the rows behind it drain', async () => {
    const bodies = ['0xpoison', '0xa', '0xb'].map((hash) => JSON.stringify(depositSample({ hash })));
    for (const body of bodies)
      await putInbox(pool, { secretHash: hashInboxSecret(HASH_KEY, SECRET), body, headers: {} }, 0);
    const ingested: string[] = [];
    const ingest: WebhookIngest = async (items) => {
      if (items.some((i) => i.raw === bodies[0])) throw new Error('this body cannot be stored');
      ingested.push(...items.map((i) => i.raw));
      return items.map(() => ({ outcome: 'duplicate' }) as IngestResult);
    };
    let logs = '';
    const logger = createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk, _e, cb) {
          logs += chunk.toString();
          cb();
        },
      }),
    });
    const o = {
      run: <T>(fn: (c: pg.ClientBase) => Promise<T>) => fn(client),
      ingest,
      hashKey: HASH_KEY,
      accepted: () => [SECRET],
      logger,
    };
    for (let round = 0; round < MAX_INGEST_FAILURES; round++) await drainInbox(o);
    // The good rows were ingested and deleted; the poison row is kept, set aside with why, and not read again.
    expect(ingested.sort()).toEqual([bodies[1], bodies[2]].sort());
    const { rows } = await client.query<{ key: string; refusal: string | null; refused: boolean }>(
      'SELECT key, refusal, refused_at IS NOT NULL AS refused FROM webhook_inbox',
    );
    expect(rows).toEqual([
      {
        key: inboxKey(bodies[0]!),
        refusal: `could not be ingested ${MAX_INGEST_FAILURES} times: this body cannot be stored`,
        refused: true,
      },
    ]);
    expect(logs).toMatch(/kept in webhook_inbox, not alerted/);
    expect(await drainInbox(o)).toBe(0);
  });
});
