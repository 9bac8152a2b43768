/**
 * Screening's I/O: the sanctions list in force (the bundled snapshot until SANCTIONS_LIST_URL, or
 * the embedded sandbox's copy, has been read; the last good list kept in the store across
 * restarts), its refresh (the `screening.refresh` job), and the provider asked before each step's
 * commit. What it hands the rule table is data (`facts()`), judged by the pure rules in
 * src/withdrawals/screening-rules.ts; a deposit's sender is judged by `listed`.
 */
import { appendAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { collection, type Store } from '../store/index.js';
import { isListed, listAge, listChanges, listRef, makeList, type ListRef, type SanctionsList } from './list.js';
import { loadBundled, loadList } from './load.js';
import type { Provider } from './provider.js';
import type { ProviderAnswer, ScreeningFacts, ScreeningNotice } from './types.js';
import type { Tx } from '../store/index.js';

/**
 * A refresh that removes more than this share of the addresses is refused: OFAC delists a handful
 * at a time, so a list that shrinks that much is a broken or tampered source, not a delisting.
 */
export const MAX_REMOVED_SHARE = 0.05;

/** The last list read from its source, so a restart while the source is down keeps it (and its true age). */
interface KeptList {
  source: string;
  date: string;
  fetchedAt: string;
  sha256: string;
  assets?: string[];
  addresses: string[];
}
export const SCREENING_LIST = collection<KeptList>('screening_list');
const KEY = 'current';

/** What `/treasury status` shows of screening. */
export interface ScreeningStatus {
  enabled: boolean;
  list: ListRef;
  bundled: boolean;
  /** No SANCTIONS_LIST_URL is set: the bundled snapshot cannot be refreshed. */
  unsourced: boolean;
  ageMs: number;
  stale: boolean;
  /** The last refresh that failed, while no refresh has worked since. */
  failing?: { at: string; error: string };
  provider?: string;
}

/** A deposit's sender on the list (or named sanctioned by the provider): what the alert and the admins are told. */
export interface ListedVerdict {
  address: string;
  list: ListRef;
  by: 'list' | 'provider';
}

export interface ScreeningService {
  /** The list in force and the provider's kept answers, for the rule table. */
  facts(): ScreeningFacts;
  /** Asks the provider about `address` (when one is configured) so that `facts()` has its answer. Never throws. */
  ask(address: string): Promise<ProviderAnswer | undefined>;
  /** The sender of a deposit judged: listed (by which list), or undefined. */
  listed(address: string | undefined): ListedVerdict | undefined;
  /**
   * Reads the list again when due (screening.refresh) or when the last read failed, or at once with
   * `force` (the job run by hand); throws when it cannot.
   */
  refresh(o?: { force?: boolean }): Promise<void>;
  status(): ScreeningStatus;
}

export async function createScreening(o: {
  /** SANCTIONS_LIST_URL (or the sandbox's copy); absent: the bundled snapshot only. */
  source: string | undefined;
  provider?: Provider | undefined;
  store: Store;
  policy: PolicySource<Pick<Policy, 'screening'>>;
  now: () => number;
  logger: Logger;
  timeoutMs?: number;
  /** Tells the admins (screening/notices.ts), e.g. of a refresh refused because the list shrank. */
  tell?: (tx: Tx, notice: ScreeningNotice) => void;
}): Promise<ScreeningService> {
  const { store, now, logger } = o;
  let list: SanctionsList = await loadBundled({ now });
  let bundled = true;
  let failing: { at: string; error: string } | undefined;
  const kept = store.get(SCREENING_LIST, KEY);
  if (kept && o.source && kept.source === o.source) {
    const restored = makeList(kept.addresses, kept);
    if (restored.sha256 === kept.sha256) {
      list = restored;
      bundled = false;
    } else logger.error('the sanctions list kept in the store does not match its sha256: the bundled snapshot is used');
  }

  function due(): boolean {
    if (!o.source) return false;
    if (bundled || failing) return true;
    return listAge(list, now()) >= o.policy.current().screening.refresh;
  }

  async function refresh(opts: { force?: boolean } = {}): Promise<void> {
    // Run by hand with nothing to read from: say what is missing rather than do nothing.
    if (!o.source && opts.force)
      throw new Error(
        `no sanctions list source is configured: set SANCTIONS_LIST_URL to refresh the list (the bundled snapshot of ${list.date.slice(0, 10)} is used)`,
      );
    if (!o.source || !(opts.force || due())) return;
    const source = o.source!;
    let next: SanctionsList;
    try {
      next = await loadList(source, {
        now,
        ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
        ...(bundled ? {} : { assets: list.assets }),
      });
      // An empty list is a broken download (a truncated file, an error page), never "nobody is sanctioned".
      if (!next.count) throw new Error(`${next.source} holds no address`);
      const { removed } = listChanges(list, next);
      // Compared with the list read from the same source (the bundled snapshot may be a different selection).
      if (!bundled && removed > list.count * MAX_REMOVED_SHARE)
        throw new Error(
          `the new copy removes ${removed} of the ${list.count} addresses (more than ${MAX_REMOVED_SHARE * 100}%), which a real delisting never does`,
        );
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const first = !failing || failing.error !== error;
      failing = { at: new Date(now()).toISOString(), error };
      const at = failing.at;
      // Audited and told once per reason: a source broken the same way every hour is one event.
      if (first)
        await store.commit((tx) => {
          appendAudit(tx, {
            at,
            actor: 'system',
            action: 'screening_list_refresh_failed',
            subject: 'sanctions-list',
            details: { error, kept: listRef(list) },
          });
          o.tell?.(tx, {
            kind: 'list-refused',
            at,
            address: source.replace(/[?#].*$/, ''),
            reason: error,
            list: { date: list.date, sha256: list.sha256 },
          });
        });
      logger.warn({ error, sha256: list.sha256 }, 'the sanctions list could not be refreshed: the last list is kept');
      throw new Error(`the sanctions list could not be read (${error}); the list of ${list.date} is kept`);
    }
    const changes = listChanges(list, next);
    const recovered = !!failing;
    await store.commit((tx) => {
      tx.put(SCREENING_LIST, KEY, { ...listRef(next), source, addresses: [...next.addresses] });
      // Audited when what is screened changed (or reads work again): a daily read of the same list is only its age reset.
      if (next.sha256 !== list.sha256 || recovered)
        appendAudit(tx, {
          at: next.fetchedAt,
          actor: 'system',
          action: 'screening_list_refreshed',
          subject: 'sanctions-list',
          details: { ...listRef(next), ...changes, previous: list.sha256 },
        });
    });
    list = next;
    bundled = false;
    failing = undefined;
    logger.info({ count: next.count, sha256: next.sha256, ...changes }, 'sanctions list refreshed');
  }

  const facts = (): ScreeningFacts => ({
    list,
    ...(bundled ? { bundled: true } : {}),
    ...(!o.source ? { unsourced: true } : {}),
    ...(o.provider ? { provider: { name: o.provider.name, answer: o.provider.answer } } : {}),
  });

  return {
    facts,
    async ask(address) {
      if (!o.provider || !o.policy.current().screening.enabled) return undefined;
      return o.provider.ask(address);
    },
    listed(address) {
      if (!address) return undefined;
      // The list always decides; `enabled: false` switches off only the provider (and the look-alikes).
      if (isListed(list, address)) return { address, list: listRef(list), by: 'list' };
      if (o.policy.current().screening.enabled && o.provider?.answer(address)?.kind === 'listed')
        return { address, list: listRef(list), by: 'provider' };
      return undefined;
    },
    refresh,
    status() {
      const p = o.policy.current().screening;
      const ageMs = listAge(list, now());
      return {
        enabled: p.enabled,
        list: listRef(list),
        bundled,
        unsourced: !o.source,
        ageMs,
        stale: ageMs > p.max_age,
        ...(failing ? { failing } : {}),
        ...(o.provider ? { provider: o.provider.name } : {}),
      };
    },
  };
}
