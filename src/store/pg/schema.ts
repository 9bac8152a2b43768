/**
 * The PostgreSQL schema, as numbered migrations applied in order at start by the leader, under
 * its advisory lock (so two replicas starting at once never migrate together). Applied
 * versions are recorded in `store_schema`; a database migrated by a newer app (a version this
 * one does not know) is refused rather than written with an older idea of the tables.
 *
 * Records are `json`, not `jsonb`: json keeps the exact text the store wrote (key order, so a
 * reload hands domain code the objects it wrote) and accepts every string JSON can hold,
 * `\u0000` included, which jsonb rejects: a webhook body carrying one must not stop the leader.
 */
import type pg from 'pg';

export const MIGRATIONS: ReadonlyArray<{ version: number; what: string; sql: string }> = [
  {
    version: 1,
    what: 'records, the leader epoch, the webhook inbox',
    sql: `
      CREATE TABLE store_records (
        collection text NOT NULL,
        id text NOT NULL,
        -- insertion order across the store: a put of an existing id keeps its ord
        ord bigint NOT NULL,
        value json NOT NULL,
        PRIMARY KEY (collection, id)
      );
      CREATE INDEX store_records_ord ON store_records (ord);
      CREATE TABLE replica_leader (
        id int PRIMARY KEY CHECK (id = 1),
        epoch bigint NOT NULL,
        holder text,
        since timestamptz,
        heartbeat_at timestamptz
      );
      INSERT INTO replica_leader (id, epoch) VALUES (1, 0);
      CREATE TABLE webhook_inbox (
        key text PRIMARY KEY,
        seq bigserial NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        item json NOT NULL
      );
    `,
  },
  {
    version: 2,
    what: 'the verification calls a standby answered, for the leader to audit',
    sql: `
      CREATE TABLE verification_inbox (
        key text PRIMARY KEY,
        seq bigserial NOT NULL,
        item json NOT NULL
      );
    `,
  },
  {
    version: 3,
    what: 'a drained webhook the leader refused is kept, set aside',
    sql: `
      ALTER TABLE webhook_inbox ADD COLUMN refused_at timestamptz;
      ALTER TABLE webhook_inbox ADD COLUMN refusal text;
    `,
  },
  {
    version: 4,
    // The rows' secrets are hashed by the leader when it starts draining (src/replica/inbox.ts,
    // hashLegacyRows): the hash's key is SECRETS_KEY's, which SQL here does not have.
    what: 'the inbox drains known events ahead of unknown ones',
    sql: `
      ALTER TABLE webhook_inbox ADD COLUMN priority smallint NOT NULL DEFAULT 0;
      CREATE INDEX webhook_inbox_drain ON webhook_inbox (priority, seq) WHERE refused_at IS NULL;
    `,
  },
  {
    version: 5,
    // src/store/history.ts. A constant default makes the new column a catalog change, not a rewrite.
    // The leader loads \`NOT cold\` rows in ord order (store_records_hot); history reads cold rows
    // by id (the primary key), and by the fields of HISTORY_FIELDS, copied into plain columns by the
    // commit that evicts a row (batch.ts, coldKeys: NUL taken out). No json operator runs on a stored
    // value here or in a commit's SQL: \`value->>'…'\` fails on any row holding \u0000 (json keeps
    // it, text cannot), which would fail the group commit and every replica after it. lower() +
    // text_pattern_ops so a reference's exact and prefix lookups both use one index. Pages go by
    // id in byte order (COLLATE "C", store_records_cold_id), the order memory sorts its ids in, so
    // a page of memory and a page of rows merge into one order whatever the database's locale.
    what: 'closed records leave memory: the cold flag, the fields history searches, and their indexes',
    sql: `
      ALTER TABLE store_records ADD COLUMN cold boolean NOT NULL DEFAULT false;
      ALTER TABLE store_records ADD COLUMN ref text;
      ALTER TABLE store_records ADD COLUMN subject text;
      ALTER TABLE store_records ADD COLUMN request text;
      CREATE INDEX store_records_hot ON store_records (ord) WHERE NOT cold;
      CREATE INDEX store_records_cold_id ON store_records (collection, id COLLATE "C") WHERE cold;
      CREATE INDEX store_records_reference ON store_records (collection, lower(ref) text_pattern_ops) WHERE cold;
      CREATE INDEX store_records_subject ON store_records (collection, subject) WHERE cold;
      CREATE INDEX store_records_request ON store_records (collection, request) WHERE cold;
    `,
  },
];

/** Applies the migrations this database lacks, each in its own transaction. Caller holds the leader lock. */
export async function migrate(client: pg.ClientBase): Promise<number[]> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS store_schema (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const { rows } = await client.query<{ version: number }>('SELECT version FROM store_schema ORDER BY version');
  const have = new Set(rows.map((r) => r.version));
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  const newest = Math.max(0, ...have);
  if (newest > known) {
    throw new Error(
      `the database's schema is version ${newest}, newer than this app knows (${known}): run the newer app, or restore a backup`,
    );
  }
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    if (have.has(m.version)) continue;
    await client.query('BEGIN');
    try {
      await client.query(m.sql);
      await client.query('INSERT INTO store_schema (version) VALUES ($1)', [m.version]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    applied.push(m.version);
  }
  return applied;
}
