/**
 * How the app connects to PostgreSQL: its settings, and the URL as it may be shown (no password).
 */
import type pg from 'pg';

/**
 * A hung leader (frozen process, lost network) must lose its session, and so its advisory
 * lock, within seconds: the server ends a session idle this long, or idle inside a
 * transaction, and TCP keepalives find a dead peer. The leader's heartbeat runs well inside it.
 */
export const SESSION_TIMEOUT_MS = 3_000;

/**
 * The leader's write connection holds no lock (the lock session, lock-worker.mjs, does), so it
 * may sit idle through a stall of the event loop; a stall inside one of its transactions is
 * forgiven this long. The price: a leader frozen inside a write transaction keeps the epoch
 * row locked, and delays the next leader's epoch bump, up to this long.
 */
export const WRITE_STALL_TOLERANCE_MS = 15_000;

export function clientConfig(
  url: string,
  o: { sessionTimeout?: boolean; application?: string; inTransactionTimeoutMs?: number } = {},
): pg.ClientConfig {
  const inTransaction = `-c idle_in_transaction_session_timeout=${o.inTransactionTimeoutMs ?? SESSION_TIMEOUT_MS}`;
  const settings = o.sessionTimeout ? `-c idle_session_timeout=${SESSION_TIMEOUT_MS} ${inTransaction}` : inTransaction;
  return {
    connectionString: url,
    keepAlive: true,
    keepAliveInitialDelayMillis: 1_000,
    connectionTimeoutMillis: 5_000,
    application_name: o.application ?? 'treasury-slack',
    options: `${settings} -c tcp_keepalives_idle=2 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=2`,
  };
}

/** The URL without its password or query (for logs, /treasury status and errors). */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
    return `postgres://${host}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
