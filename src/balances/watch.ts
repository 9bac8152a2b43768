/**
 * The low-balance watch: reads the balances, and posts to the alerts channel what
 * `lowBalanceChanges` says, recording what was announced in the same commit as the post's
 * outbox entry (so an alert is neither lost nor repeated, across restarts too).
 * Run by the job `balances.watch-low` and after each withdrawal outcome.
 */
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PriceSnapshot } from '../prices/types.js';
import { collection, type Store } from '../store/index.js';
import type { BalanceBook } from './book.js';
import {
  assetKey,
  lowBalanceChanges,
  nativeThresholds,
  lowBalanceText,
  unrecorded,
  withMissingAsZero,
  type LowBalanceChange,
  type LowBalanceState,
} from './low-balance.js';
import type { PolicySource } from '../policy/source.js';

/** What was last announced per asset (`USDT:BSC`); the persisted name must never change. */
export const LOW_BALANCE_STATE = collection<LowBalanceState>('balance_alerts');
export const LOW_BALANCE_RENDERER = 'balances.low';

export interface LowBalanceWatch {
  /** Reads the balances and posts what changed; returns the changes (none when the read failed). */
  check(): Promise<LowBalanceChange[]>;
}

/** The alert's ref carries its own figures: it says what was true when it was decided. */
const refOf = (c: LowBalanceChange) => JSON.stringify([c.kind, c.currency, c.network, c.balance, c.threshold]);

export function createLowBalanceWatch(o: {
  store: Store;
  outbox: Outbox;
  book: BalanceBook;
  /** Read at each check: the policy in force. */
  policy: PolicySource;
  /** The price cache: `value` thresholds in each currency's units. */
  prices?: () => PriceSnapshot;
  logger: Logger;
  now: () => number;
}): LowBalanceWatch {
  o.outbox.registerRenderer(LOW_BALANCE_RENDERER, (ref) => {
    try {
      const [kind, currency, network, balance, threshold] = JSON.parse(ref) as string[];
      if ((kind !== 'low' && kind !== 'recovered') || !currency || !network || !balance || !threshold) return null;
      return { text: lowBalanceText({ kind, currency, network, balance, threshold }) };
    } catch {
      return null;
    }
  });

  let running: Promise<LowBalanceChange[]> | undefined;
  async function check(): Promise<LowBalanceChange[]> {
    const configured = o.policy.current().alerts.low_balance;
    if (!Object.keys(configured).length) return [];
    const reading = await o.book.refresh();
    if (!reading.ok) return [];
    // `value` thresholds (USD) in each currency's own units at its fresh price (low-balance.ts).
    const thresholds = nativeThresholds(
      configured,
      [
        ...reading.rows,
        ...o.store.all(LOW_BALANCE_STATE).flatMap((r) => (r.currency ? [{ currency: r.currency }] : [])),
      ],
      o.prices?.(),
    );
    return o.store.commit((tx) => {
      // Decided inside the commit, on what is stored now: two checks at once cannot both announce.
      const stored = (key: string) => tx.get(LOW_BALANCE_STATE, key);
      // A known asset the service stops listing counts as 0 here (low-balance.ts withMissingAsZero).
      const known = tx
        .all(LOW_BALANCE_STATE)
        .flatMap((r) => (r.currency && r.network ? [{ currency: r.currency, network: r.network }] : []));
      const changes = lowBalanceChanges(thresholds, withMissingAsZero(reading.rows, known), stored);
      const since = new Date(o.now()).toISOString();
      // First sight of an asset (or a record from before the asset was kept in it): remembered, nothing said.
      for (const r of unrecorded(thresholds, reading.rows, stored))
        if (!changes.some((c) => c.key === assetKey(r.currency, r.network)))
          tx.put(LOW_BALANCE_STATE, assetKey(r.currency, r.network), {
            low: stored(assetKey(r.currency, r.network))?.low ?? false,
            since: stored(assetKey(r.currency, r.network))?.since ?? since,
            currency: r.currency,
            network: r.network,
          });
      for (const c of changes) {
        tx.put(LOW_BALANCE_STATE, c.key, { low: c.kind === 'low', since, currency: c.currency, network: c.network });
        o.outbox.enqueue(tx, {
          op: 'post',
          renderer: LOW_BALANCE_RENDERER,
          ref: refOf(c),
          key: `balance:${c.key}:${since}`,
          channel: o.policy.current().channels.alerts,
        });
      }
      if (changes.length) o.logger.info({ changes: changes.map((c) => `${c.kind} ${c.key}`) }, 'balance alerts');
      return changes;
    });
  }
  return {
    // One check at a time: the job and a withdrawal's outcome may ask together.
    check() {
      running ??= check().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
