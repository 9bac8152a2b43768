/**
 * The origin accounts' balances as the app knows them: read from the wallet service on demand
 * (`refresh`, concurrent callers share one call) and kept in memory, so that renderers (the
 * approval card, the App Home) can show the last reading synchronously. A failed read is
 * remembered as such: what was last read is then "unavailable", never silently stale.
 *
 * An asset the service does not list has an unknown balance (not 0: see balanceIn).
 */
import { serializeError, type Logger } from '../log.js';
import type { OriginBalance } from '../wallet/client/types.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup, NETWORKS } from '../wallet/enums.js';

export interface BalanceReading {
  rows: OriginBalance[];
  /** Unix ms of the reading. */
  at: number;
}

/** A failed read keeps its error (a WalletError, already free of secrets) for the words a person reads. */
export type BalanceRefresh = ({ ok: true } & BalanceReading) | { ok: false; error: unknown; at: number };

export interface BalanceBook {
  /** Reads every balance now (one call shared by concurrent callers). Never throws. */
  refresh(): Promise<BalanceRefresh>;
  /** A fresh read of one balance (exact decimal text), or undefined when it cannot be read or is not listed. */
  read(currency: string, network: string): Promise<string | undefined>;
  /** The last reading of one balance, without asking; undefined if none, if the last read failed, or if not listed. */
  last(currency: string, network: string): string | undefined;
  /** The last attempt: the reading, or why it failed; undefined before the first. */
  latest(): BalanceRefresh | undefined;
}

const canonical = (members: typeof CURRENCIES | typeof NETWORKS, v: string) => lookup(members, v)?.name ?? v.trim();

/**
 * The balance of one asset in a reading: its row, or undefined (unknown) when the service lists
 * none. An unlisted asset is not proven empty (the service may list only what it holds, or omit a
 * row): unknown lets a request through with the card's "could not be read" flag, and the send.
 */
export function balanceIn(rows: readonly OriginBalance[], currency: string, network: string): string | undefined {
  const c = canonical(CURRENCIES, currency);
  const n = canonical(NETWORKS, network);
  return rows.find((r) => r.currency === c && r.network === n)?.balance;
}

/**
 * A request made in Slack must be answered within 3 seconds, and a balance read is a wallet call
 * with a 10 s deadline and retries: at request time it gets this long, then the balance counts
 * as unreadable (the request is allowed and its card flagged; the send checks it again).
 */
export const REQUEST_BALANCE_WAIT_MS = 2_000;

/** A fresh read of one balance, or undefined if it is not there within `ms` (the read carries on for later readers). */
export async function readWithin(
  source: { read(currency: string, network: string): Promise<string | undefined> },
  currency: string,
  network: string,
  ms: number,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
    timer.unref();
  });
  try {
    return await Promise.race([source.read(currency, network), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createBalanceBook(o: {
  wallet: Pick<WalletClient, 'originBalances'>;
  logger: Logger;
  now: () => number;
}): BalanceBook {
  let latest: BalanceRefresh | undefined;
  let running: Promise<BalanceRefresh> | undefined;

  function refresh(): Promise<BalanceRefresh> {
    running ??= (async (): Promise<BalanceRefresh> => {
      try {
        const rows = await o.wallet.originBalances();
        latest = { ok: true, rows, at: o.now() };
      } catch (err) {
        o.logger.warn({ err: serializeError(err) }, 'could not read the balances');
        latest = { ok: false, error: err, at: o.now() };
      } finally {
        running = undefined;
      }
      return latest;
    })();
    return running;
  }

  return {
    refresh,
    async read(currency, network) {
      const r = await refresh();
      return r.ok ? balanceIn(r.rows, currency, network) : undefined;
    },
    last(currency, network) {
      return latest?.ok ? balanceIn(latest.rows, currency, network) : undefined;
    },
    latest: () => latest,
  };
}
