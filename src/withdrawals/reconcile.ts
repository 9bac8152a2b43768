/**
 * Asking the wallet service, never resending: for withdrawals whose outcome is unknown, and for
 * any withdrawal a notification (webhook) made a claim about (notice.ts: a claim is only a
 * prompt to ask). First the service's status for the merchantReference (the exact answer;
 * settle-by-status.ts decides, NotFound trusted only after the grace period and once the
 * transaction list has no record of it either), and only when that call fails, the transaction
 * list searched for the reference; a record with a readable final status settles an unknown
 * one, anything else leaves it as it is for the next run or an admin.
 *
 * The answer is committed in ONE commit: the settlement of an unknown outcome, the service's
 * word as the transfer status shown (and the holds its report puts on a payout found never
 * executed, family-holds.ts), and the verdict on the waiting claim. A service that cannot be
 * reached changes nothing: the claim keeps waiting (the card says so) and the next run asks again.
 */
import { serializeError, type Logger } from '../log.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { incompleteNote, pageSizeOf, transactionPages, type PagedWallet } from '../wallet/pager.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import { holdFamily } from './family-holds.js';
import { wordOfListed, wordOfStatus } from './notice.js';
import { notFoundTrusted } from './settle-by-status.js';
import { WITHDRAWALS, type Shell } from './shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from './types.js';
import type { ListedTransaction } from './wallet-answer.js';

export interface ReconcileReport {
  checked: number;
  resolved: WithdrawalRequest[];
  stillUnknown: string[];
  errors: Array<{ id: string; message: string }>;
  /** Requests (not unknown) whose waiting notification was checked with the service. */
  notices: number;
}

/** What the service said of one reference: its status, its list's record, or nothing this time. */
type Heard =
  | { kind: 'status'; status: WithdrawalStatus }
  | { kind: 'listed'; found: ListedTransaction }
  | { kind: 'none'; error?: string };

export interface Reconciler {
  /** Every unknown request, and every waiting notification, asked once. */
  run(): Promise<ReconcileReport>;
  /** One request asked now (after a notification); the request after the answer, or undefined. */
  check(id: string): Promise<WithdrawalRequest | undefined>;
}

export function createReconciler(
  shell: Shell,
  o: {
    wallet: PagedWallet & Partial<Pick<WalletClient, 'withdrawalStatus'>>;
    logger: Logger;
    maxPages: number;
    pageSize: number;
  },
): Reconciler {
  const { wallet, logger, maxPages, pageSize } = o;

  async function findInTransactions(req: WithdrawalRequest): Promise<ListedTransaction | undefined> {
    // Paged by the service's own totals (src/wallet/pager.ts); the page size asked is never above
    // the one known to be accepted (the wallet's), and the service's own is followed.
    const size = Math.min(pageSize, pageSizeOf(wallet));
    const pages = transactionPages(wallet, { address: req.destination, type: 'withdrawal' }, { pageSize: size });
    let page = 0;
    for (;;) {
      const step = await pages.next();
      if (step.done) {
        // "Not in the list" is only believed of a list read to its end.
        const note = incompleteNote(step.value);
        if (note) throw new Error(`the transaction list could not be read to its end: ${note}`);
        return undefined;
      }
      const hit = step.value.records.find((rec) => rec.reference === req.merchantReference);
      if (hit) return hit;
      if (++page >= maxPages) break;
    }
    logger.warn(
      { id: req.id, maxPages, currency: lookup(CURRENCIES, req.currency)?.name },
      'reconciliation stopped after the page limit without finding the reference',
    );
    return undefined;
  }

  async function statusOf(req: WithdrawalRequest): Promise<WithdrawalStatus | undefined> {
    if (!wallet.withdrawalStatus) return undefined;
    try {
      return await wallet.withdrawalStatus(req.merchantReference);
    } catch (err) {
      logger.warn(
        { id: req.id, err: serializeError(err) },
        'the withdrawal status call failed; falling back to the transaction list',
      );
      return undefined;
    }
  }

  async function hear(req: WithdrawalRequest): Promise<Heard> {
    const status = await statusOf(req);
    if (status) {
      // Status first, list second: before a NotFound past the grace is believed, the reference is
      // looked up once in the transaction list; a record there settles it (or keeps it unknown).
      const ctx = shell.context();
      if (
        status.status === 'not_found' &&
        req.state === 'unknown' &&
        notFoundTrusted(req, { now: ctx.now, graceMs: ctx.policy.withdrawals.not_found_grace })
      ) {
        try {
          const listed = await findInTransactions(req);
          if (listed) return { kind: 'listed', found: listed };
        } catch (err) {
          logger.warn(
            { id: req.id, err: serializeError(err) },
            'the wallet service has no record of this withdrawal, but the transaction list could not be read to confirm it; still unknown',
          );
          return { kind: 'none' };
        }
      }
      return { kind: 'status', status };
    }
    try {
      const found = await findInTransactions(req);
      return found ? { kind: 'listed', found } : { kind: 'none' };
    } catch (err) {
      logger.warn({ id: req.id, err: serializeError(err) }, 'reconciliation could not read the transaction list');
      return { kind: 'none', error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** The answer, decided on the request as stored now, in one commit; the events of its changes. */
  function commitHeard(id: string, heard: Heard): Promise<WithdrawalEvent[]> {
    return shell.store.commit((tx) => {
      const events: WithdrawalEvent[] = [];
      const first = tx.get(WITHDRAWALS, id);
      if (!first || heard.kind === 'none') return events;
      const now = () => tx.get(WITHDRAWALS, id)!;
      const push = (e: WithdrawalEvent | undefined) => {
        if (e) events.push(e);
      };
      // Whether the record settles it (a readable final status) is the decider's; a commit that changes nothing writes nothing.
      if (first.state === 'unknown')
        push(
          shell.apply(
            tx,
            heard.kind === 'status'
              ? { type: 'settle-by-status', status: heard.status }
              : { type: 'reconcile', found: heard.found },
            first,
          ).event,
        );
      // Asked because of a notification: the service's word is shown, its report holds a payout, the claim is judged.
      if (first.notice?.waiting) {
        const word = heard.kind === 'status' ? wordOfStatus(heard.status) : wordOfListed(heard.found);
        const before = now();
        push(shell.apply(tx, { type: 'service-word', word }, before).event);
        events.push(...holdFamily(shell, tx, before, now(), logger));
        push(shell.apply(tx, { type: 'notice-verdict', word }, now()).event);
      }
      return events;
    });
  }

  async function once(id: string): Promise<WithdrawalRequest | undefined> {
    const req = shell.stored(id);
    if (!req || (req.state !== 'unknown' && !req.notice?.waiting)) return req;
    await commitHeard(id, await hear(req));
    return shell.stored(id);
  }

  // One question per request at a time, and at most one more queued behind it: notifications
  // posted in a burst share it, yet one recorded while a question is under way is asked about.
  const last = new Map<string, Promise<WithdrawalRequest | undefined>>();
  const queued = new Map<string, Promise<WithdrawalRequest | undefined>>();
  function check(id: string): Promise<WithdrawalRequest | undefined> {
    const waiting = queued.get(id);
    if (waiting) return waiting;
    const p = (last.get(id) ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .then(() => {
        queued.delete(id);
        return once(id);
      });
    queued.set(id, p);
    last.set(id, p);
    void p
      .finally(() => {
        if (last.get(id) === p) last.delete(id);
      })
      .catch(() => undefined);
    return p;
  }

  async function run(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: [], stillUnknown: [], errors: [], notices: 0 };
    for (const req of shell.store.find(WITHDRAWALS, (r) => r.state === 'unknown' || !!r.notice?.waiting)) {
      if (req.state !== 'unknown') {
        report.notices++;
        await check(req.id);
        continue;
      }
      report.checked++;
      const heard = await hear(req);
      const events = await commitHeard(req.id, heard);
      if (heard.kind === 'none' && heard.error) report.errors.push({ id: req.id, message: heard.error });
      const settled = events.find((e) => e.request.id === req.id && e.request.state !== 'unknown');
      if (settled) report.resolved.push(settled.request);
      else report.stillUnknown.push(req.id);
    }
    if (report.checked || report.notices)
      logger.info(
        {
          checked: report.checked,
          resolved: report.resolved.length,
          stillUnknown: report.stillUnknown.length,
          notices: report.notices,
        },
        'reconciled unknown withdrawals and asked about notifications',
      );
    return report;
  }

  return { run, check };
}
