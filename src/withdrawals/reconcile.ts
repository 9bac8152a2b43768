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
 * An answer about another reference counts as unreachable; one naming another destination or
 * amount settles nothing and is told to the admins (service-mismatch.ts).
 *
 * Every question about a request goes through its queue (one at a time, one more waiting), so an
 * older answer is never committed after a newer one. Questions a notification prompts are
 * throttled (notice-throttle.ts) and look at one page of the list at most; the reconcile job's
 * are not. A request found never executed that a notification named is asked about again by the
 * job for 7 days after that notification: a genuine report may come after a forged one.
 */
import { serializeError, type Logger } from '../log.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, lookup } from '../wallet/enums.js';
import { incompleteNote, pageSizeOf, transactionPages, type PagedWallet } from '../wallet/pager.js';
import type { WithdrawalStatus } from '../wallet/client/withdrawal-status.js';
import { holdFamily } from './family-holds.js';
import { wordOfListed, wordOfStatus } from './notice.js';
import { createNoticeThrottle, type NoticeThrottleOptions } from './notice-throttle.js';
import { notFoundTrusted } from './settle-by-status.js';
import { WITHDRAWALS, type Shell } from './shell.js';
import type { WithdrawalEvent, WithdrawalRequest } from './types.js';
import { statusMismatches, type ListedTransaction } from './wallet-answer.js';

export interface ReconcileReport {
  checked: number;
  resolved: WithdrawalRequest[];
  stillUnknown: string[];
  errors: Array<{ id: string; message: string }>;
  /** Requests (not unknown) whose waiting notification was checked with the service. */
  notices: number;
}

/** What the service said of one reference: its status, its list's record, an answer not about this request, or nothing this time. */
type Heard =
  | { kind: 'status'; status: WithdrawalStatus }
  | { kind: 'listed'; found: ListedTransaction }
  | { kind: 'mismatch'; status: WithdrawalStatus; mismatches: string[] }
  | { kind: 'none'; error?: string };

/** What prompted a question: a notification (throttled, one list page) or the reconcile job. */
type Prompt = 'notice' | 'job';

interface Asked {
  request: WithdrawalRequest | undefined;
  heard?: Heard;
  events: WithdrawalEvent[];
}

export interface Reconciler {
  /** Every unknown request, every waiting notification, every recently named never-executed request, asked once. */
  run(): Promise<ReconcileReport>;
  /** One request asked after a notification (throttled); the request after the answer, or undefined. */
  check(id: string): Promise<WithdrawalRequest | undefined>;
}

/** How long after a notification a request found never executed is still asked about. */
export const NEVER_EXECUTED_NOTICE_WINDOW_MS = 7 * 24 * 3_600_000;

/** Found never executed, and a notification named it less than 7 days ago: the service is asked again, its report may follow. */
export const askAgainAfterNotice = (r: WithdrawalRequest, now: number): boolean =>
  r.state === 'failed' &&
  r.error?.kind === 'never_executed' &&
  !!r.notice &&
  now - Date.parse(r.notice.at) < NEVER_EXECUTED_NOTICE_WINDOW_MS;

const toAsk = (r: WithdrawalRequest, now: number): boolean =>
  r.state === 'unknown' || !!r.notice?.waiting || askAgainAfterNotice(r, now);

export function createReconciler(
  shell: Shell,
  o: {
    wallet: PagedWallet & Partial<Pick<WalletClient, 'withdrawalStatus'>>;
    logger: Logger;
    maxPages: number;
    pageSize: number;
    /** Questions a notification prompts: per request and overall (notice-throttle.ts defaults). */
    noticeThrottle?: NoticeThrottleOptions;
  },
): Reconciler {
  const { wallet, logger, maxPages, pageSize } = o;
  const throttle = createNoticeThrottle(o.noticeThrottle);

  async function findInTransactions(req: WithdrawalRequest, pages: number): Promise<ListedTransaction | undefined> {
    // Paged by the service's own totals (src/wallet/pager.ts); the page size asked is never above
    // the one known to be accepted (the wallet's), and the service's own is followed.
    const size = Math.min(pageSize, pageSizeOf(wallet));
    const read = transactionPages(wallet, { address: req.destination, type: 'withdrawal' }, { pageSize: size });
    let page = 0;
    for (;;) {
      const step = await read.next();
      if (step.done) {
        // "Not in the list" is only believed of a list read to its end.
        const note = incompleteNote(step.value);
        if (note) throw new Error(`the transaction list could not be read to its end: ${note}`);
        return undefined;
      }
      const hit = step.value.records.find((rec) => rec.reference === req.merchantReference);
      if (hit) return hit;
      if (++page >= pages) break;
    }
    logger.warn(
      { id: req.id, maxPages: pages, currency: lookup(CURRENCIES, req.currency)?.name },
      'reconciliation stopped after the page limit without finding the reference',
    );
    return undefined;
  }

  async function statusOf(req: WithdrawalRequest): Promise<WithdrawalStatus | undefined> {
    if (!wallet.withdrawalStatus) return undefined;
    try {
      const status = await wallet.withdrawalStatus(req.merchantReference);
      // Not an answer about ours (the client refuses one already; any other client too): as if unreachable.
      if (status.merchantReference !== req.merchantReference) {
        logger.warn(
          { id: req.id },
          'the withdrawal status answer names another merchant reference: treated as no answer; falling back to the transaction list',
        );
        return undefined;
      }
      return status;
    } catch (err) {
      logger.warn(
        { id: req.id, err: serializeError(err) },
        'the withdrawal status call failed; falling back to the transaction list',
      );
      return undefined;
    }
  }

  async function hear(req: WithdrawalRequest, prompt: Prompt): Promise<Heard> {
    // A notification's question reads one page of the list at most: a forged one must stay cheap.
    const pages = prompt === 'notice' ? 1 : maxPages;
    const status = await statusOf(req);
    if (status) {
      const mismatches = statusMismatches(req, status);
      if (mismatches.length) {
        logger.warn(
          { id: req.id, mismatches },
          "the wallet service's status for this reference does not match the request: nothing is settled on it",
        );
        return { kind: 'mismatch', status, mismatches };
      }
      // Status first, list second: before a NotFound past the grace is believed, the reference is
      // looked up once in the transaction list; a record there settles it (or keeps it unknown).
      const ctx = shell.context();
      if (
        status.status === 'not_found' &&
        req.state === 'unknown' &&
        notFoundTrusted(req, { now: ctx.now, graceMs: ctx.policy.withdrawals.not_found_grace })
      ) {
        try {
          const listed = await findInTransactions(req, pages);
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
      const found = await findInTransactions(req, pages);
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
      // Another destination or amount: nothing settled, shown or judged; audited, the admins told once.
      if (heard.kind === 'mismatch') {
        const word = { ...wordOfStatus(heard.status), mismatches: heard.mismatches };
        push(shell.apply(tx, { type: 'service-word', word }, first).event);
        return events;
      }
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
      if (first.notice?.waiting || askAgainAfterNotice(first, shell.context().now)) {
        const word = heard.kind === 'status' ? wordOfStatus(heard.status) : wordOfListed(heard.found);
        const before = now();
        push(shell.apply(tx, { type: 'service-word', word }, before).event);
        events.push(...holdFamily(shell, tx, before, now(), logger));
        push(shell.apply(tx, { type: 'notice-verdict', word }, now()).event);
      }
      return events;
    });
  }

  async function once(id: string, prompt: Prompt): Promise<Asked> {
    const req = shell.stored(id);
    if (!req || !toAsk(req, shell.context().now)) return { request: req, events: [] };
    const heard = await hear(req, prompt);
    const events = await commitHeard(id, heard);
    return { request: shell.stored(id), heard, events };
  }

  // One question per request at a time, and at most one more queued behind it: notifications
  // posted in a burst share it, yet one recorded while a question is under way is asked about.
  // Every question goes through here (the job's too), so answers are committed in the order asked.
  interface Queued {
    prompt: Prompt;
    p: Promise<Asked>;
    /** Ends a notification's wait for its interval at once (the job asks now). */
    wake?: () => void;
  }
  const last = new Map<string, Promise<Asked>>();
  const queued = new Map<string, Queued>();

  function sleep(entry: Queued, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref?.();
      entry.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  function enqueue(id: string, prompt: Prompt): Promise<Asked> {
    const waiting = queued.get(id);
    if (waiting) {
      // The job does not wait for a notification's interval, nor is it refused a token.
      if (prompt === 'job' && waiting.prompt === 'notice') {
        waiting.prompt = 'job';
        waiting.wake?.();
      }
      return waiting.p;
    }
    const entry = { prompt } as Queued;
    entry.p = (last.get(id) ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .then(async () => {
        if (entry.prompt === 'notice') {
          const wait = throttle.waitFor(id);
          if (wait > 0) await sleep(entry, wait);
        }
        if (queued.get(id) === entry) queued.delete(id);
        if (entry.prompt === 'notice' && !throttle.take(id)) {
          logger.warn(
            { id },
            'too many questions prompted by notifications: not asked now; the reconcile job asks on its schedule',
          );
          return { request: shell.stored(id), events: [] };
        }
        return once(id, entry.prompt);
      });
    queued.set(id, entry);
    last.set(id, entry.p);
    void entry.p
      .finally(() => {
        if (last.get(id) === entry.p) last.delete(id);
      })
      .catch(() => undefined);
    return entry.p;
  }

  async function check(id: string): Promise<WithdrawalRequest | undefined> {
    return (await enqueue(id, 'notice')).request;
  }

  async function run(): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: [], stillUnknown: [], errors: [], notices: 0 };
    const now = shell.context().now;
    for (const req of shell.store.find(WITHDRAWALS, (r) => toAsk(r, now))) {
      const { heard, events } = await enqueue(req.id, 'job');
      if (req.state !== 'unknown') {
        report.notices++;
        continue;
      }
      report.checked++;
      if (heard?.kind === 'none' && heard.error) report.errors.push({ id: req.id, message: heard.error });
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
