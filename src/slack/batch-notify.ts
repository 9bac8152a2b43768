/**
 * A batch payout's one card in the approvals channel, kept true by its changes: posted in the
 * commit that records the batch, edited in the commit of each decision, and, while the rows are
 * sent, edited at most once every PROGRESS_EVERY_MS (12 a minute, well within chat.update's
 * limit of about 50 a minute, and the outbox paces every post). When it is finished or stopped,
 * a reply in its thread lists the rows not sent as asked, and the result file is uploaded there.
 * The full rows file goes in the same thread as soon as the card is posted. Both files are owed
 * durably (batch/thread-files.ts): a restart uploads them by the batches job.
 */
import type { Logger } from '../log.js';
import { COLLECTIONS, type Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import type { Store, Tx } from '../store/index.js';
import type { WithdrawalService } from '../withdrawals/index.js';
import { rowStatus, rowsCsv } from '../batches/results.js';
import type { BatchEvent, BatchService } from '../batches/index.js';
import { editThrottle } from './batch/throttle.js';
import { BATCH_FILES, oweFile, threadFiles, type FileUploader, type ThreadFile } from './batch/thread-files.js';
import { BATCH_CARD_RENDERER, BATCH_RESULT_RENDERER, batchCard, batchCardKey, batchResultText } from './batch/card.js';

export type { FileUploader };

export function batchNotifier(o: {
  store: Store;
  outbox: Outbox;
  batches: BatchService;
  withdrawals: WithdrawalService;
  policy: PolicySource;
  logger: Logger;
  /** For the result file in the card's thread; absent: the thread reply alone. */
  slack?: FileUploader | undefined;
  now?: () => number;
}) {
  const now = o.now ?? Date.now;
  const { outbox, batches } = o;
  const throttle = editThrottle({
    now,
    later: (id) => void o.store.commit((tx) => edit(tx, id)).catch(() => undefined),
  });

  outbox.registerRenderer(BATCH_CARD_RENDERER, (ref) => {
    const b = batches.get(ref);
    const p = batches.progress(ref);
    return b && p ? batchCard(b, p, (c, n) => o.withdrawals.feeEstimate(c, n)?.fee, batches.needNow(ref)) : null;
  });
  outbox.registerRenderer(BATCH_RESULT_RENDERER, (ref) => {
    const b = batches.get(ref);
    const p = batches.progress(ref);
    if (!b || !p) return null;
    const problems = batches
      .rows(ref)
      .filter((r) => r.state !== 'completed')
      .map((r) => ({
        row: r.batch?.row ?? 0,
        status: rowStatus(r),
        reason: r.error?.message ?? r.rejection?.reason ?? '',
      }));
    return { text: batchResultText(b, p, problems) };
  });

  const key = batchCardKey;
  const posted = (tx: Tx, id: string) => tx.get(COLLECTIONS.messages, key(id)) !== undefined;
  const edit = (tx: Tx, id: string) => {
    if (!posted(tx, id)) return;
    throttle.edited(id);
    outbox.enqueue(tx, { op: 'update', renderer: BATCH_CARD_RENDERER, ref: id, key: key(id), priority: 'edit' });
  };

  const files = threadFiles({
    store: o.store,
    outbox,
    slack: o.slack,
    logger: o.logger,
    now,
    cardKey: batchCardKey,
    file: (id, kind) => (kind === 'rows' ? rowsFile(id) : resultFile(id)),
  });
  /** Soon after the event, a few times while the card waits for its turn; the batches job catches up after a restart. */
  let closed = false;
  function soon(id: string, tries = 0): void {
    if (closed) return;
    files
      .uploadOwed(id)
      .then(() => {
        const left = o.store.find(BATCH_FILES, (f) => f.batch === id && f.state !== 'uploaded').length;
        if (left && tries < 25 && !closed)
          setTimeout(() => soon(id, tries + 1), Math.min(3_000, 250 * 2 ** tries)).unref();
      })
      .catch(() => undefined);
  }

  const resultFile = (id: string): ThreadFile => ({
    name: `batch-${id.slice(0, 8)}-results.csv`,
    // Final only once the rows in flight at a stop have settled: until then a later call uploads it.
    content: () => {
      const p = batches.progress(id);
      return p && p.sending === 0 && p.toSend === 0 ? batches.results(id) : undefined;
    },
    comment: 'The result of every row: merchant reference, service reference, status, fee and transaction hash.',
  });
  const rowsFile = (id: string): ThreadFile => ({
    name: `batch-${id.slice(0, 8)}-rows.csv`,
    content: () => {
      const b = batches.get(id);
      return b ? rowsCsv(b) : undefined;
    },
    comment: 'Every row of this batch payout as it will be sent: address, amount, client, value and reference.',
  });

  function onEvent(e: BatchEvent, tx: Tx): void {
    const id = e.batch.id;
    switch (e.type) {
      case 'requested':
        outbox.enqueue(tx, {
          op: 'post',
          renderer: BATCH_CARD_RENDERER,
          ref: id,
          key: key(id),
          channel: o.policy.current().channels.approvals,
        });
        // The full rows beside the card (it shows the five largest), owed in this commit, uploaded once the card is posted.
        oweFile(tx, id, 'rows', new Date(now()).toISOString());
        setImmediate(() => soon(id));
        return;
      case 'progress':
        // Throttled (throttle.ts): at most one edit per PROGRESS_EVERY_MS, and one more after the last change.
        if (throttle.offer(id)) edit(tx, id);
        return;
      case 'done':
      case 'stopped':
        edit(tx, id);
        if (posted(tx, id))
          outbox.enqueue(tx, {
            op: 'reply',
            renderer: BATCH_RESULT_RENDERER,
            ref: id,
            key: key(id),
            priority: 'detail',
          });
        // Once the rows in flight at a stop have settled, the result file says what each one did.
        oweFile(tx, id, 'results', new Date(now()).toISOString());
        setImmediate(() => void batches.idle().then(() => soon(id)));
        return;
      default:
        edit(tx, id);
    }
  }

  const off = batches.subscribe(onEvent);
  return {
    /** Every file owed to a thread whose card is posted, uploaded (the batches job, after a restart). */
    uploadOwed: () => files.uploadOwed(),
    close() {
      closed = true;
      off();
      throttle.close();
    },
  };
}
