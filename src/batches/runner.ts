/**
 * Sending an approved batch: its approved rows, in file order, paced (pace.ts), each through the
 * withdrawal service's own claim (approved -> executing, durable before the one wallet call, with
 * the row's fixed reference), so no row is ever sent twice: not by a second pass, not by a second
 * process, not after a crash. A row that fails is recorded with the service's reason and never
 * blocks the others; a row whose outcome is unknown is settled by the service's status for its
 * reference (the withdrawal service's reconciliation), never resent.
 *
 * At startup (`resume`, after the withdrawal service's recover(): rows found executing are then
 * unknown) every batch still sending carries on with the rows never claimed. Rows held by the
 * freeze or a limit stay approved; they are tried again `retryMs` later, while the batch is sending.
 */
import { frozenFact } from '../freeze/state.js';
import { serializeError } from '../log.js';
import type { Tx } from '../store/index.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import type { WithdrawalEvent } from '../withdrawals/types.js';
import { finished, progressOf } from './decide.js';
import { rowRequestId } from './reference.js';
import { DEFAULT_PACE, paced, type Pace, type PaceStats } from './pace.js';
import { BATCHES, batchOps, type BatchServiceOptions } from './service.js';

type Ops = ReturnType<typeof batchOps>;

export interface BatchService extends Omit<Ops, 'approve'> {
  approve(
    ...a: Parameters<Ops['approve']>
  ): Promise<
    | Awaited<ReturnType<Ops['approve']>>
    | (Extract<Awaited<ReturnType<Ops['approve']>>, { ok: true }> & { execution: Promise<PaceStats> })
  >;
  /** Sends the batch's rows not yet claimed; resolves once each has its outcome recorded (never rejects). */
  sendAll(id: string): Promise<PaceStats>;
  /** At startup: every batch still sending carries on. */
  resume(): string[];
  /** Waits for the sends this process started (shutdown, tests). */
  idle(): Promise<void>;
  close(): void;
}

export function createBatchService(o: BatchServiceOptions & { pace?: Pace; retryMs?: number }): BatchService {
  const ops = batchOps(o);
  const { store, withdrawals, logger } = o;
  const pace = o.pace ?? DEFAULT_PACE;
  const running = new Map<string, Promise<PaceStats>>();
  const timers = new Map<string, NodeJS.Timeout>();

  // A row's change is the batch's progress, heard in the row's commit; the last row finishes the batch.
  const off = withdrawals.subscribe((event: WithdrawalEvent, tx: Tx) => {
    const id = event.request.batch?.id;
    const b = id ? tx.get(BATCHES, id) : undefined;
    if (!b) return;
    if (b.state === 'sending') {
      const rows = b.rows.flatMap((r) => tx.get(WITHDRAWALS, rowRequestId(b.id, r.row)) ?? []);
      if (finished(progressOf(b, rows))) {
        const done = { ...b, state: 'done' as const, finishedAt: new Date(o.now?.() ?? Date.now()).toISOString() };
        tx.put(BATCHES, b.id, done);
        ops.emit(tx, 'done', done);
        return;
      }
    }
    ops.emit(tx, 'progress', b);
  });

  async function pass(id: string): Promise<PaceStats> {
    const total: PaceStats = { started: 0, maxInFlight: 0 };
    const todo = () =>
      store
        .find(WITHDRAWALS, (r) => r.batch?.id === id && r.state === 'approved' && !withdrawals.sending(r.id))
        .sort((a, b) => (a.batch?.row ?? 0) - (b.batch?.row ?? 0));
    const rows = todo();
    if (!rows.length || store.get(BATCHES, id)?.state !== 'sending') return total;
    // While sends are frozen no row is offered to the claim (each would only be held, and audited
    // as such): the rows wait, and are tried again after the freeze.
    const stats = frozenFact(store)
      ? total
      : await paced(
          rows,
          pace,
          // The claim decides: a row stopped, expired or sent meanwhile is not sent again.
          (r) => withdrawals.sendRow(r.id),
          () => store.get(BATCHES, id)?.state !== 'sending' || frozenFact(store) !== undefined,
        );
    // Rows still approved were held (the freeze, a limit): tried again later, while the batch is sending.
    // One retry waiting per batch at most (the job's resume may find it held too).
    if (todo().length && store.get(BATCHES, id)?.state === 'sending' && !timers.has(id)) {
      const t = setTimeout(() => {
        timers.delete(id);
        void sendAll(id);
      }, o.retryMs ?? 30_000);
      t.unref();
      timers.set(id, t);
    }
    return stats;
  }

  function sendAll(id: string): Promise<PaceStats> {
    const already = running.get(id);
    if (already) return already;
    const p = pass(id)
      .catch((err: unknown) => {
        logger.error({ err: serializeError(err), batch: id }, 'batch sends stopped early; a restart resumes them');
        return { started: 0, maxInFlight: 0 };
      })
      .finally(() => running.delete(id));
    running.set(id, p);
    return p;
  }

  return {
    ...ops,
    /** The last approval starts the sends (`execution`: resolves once each row's outcome is recorded). */
    async approve(id, user, facts) {
      const out = await ops.approve(id, user, facts);
      return out.ok && out.complete ? { ...out, execution: sendAll(id) } : out;
    },
    sendAll,
    resume: () =>
      store
        .find(BATCHES, (b) => b.state === 'sending')
        .map((b) => {
          logger.warn({ batch: b.id }, 'resuming the sends of a batch payout');
          void sendAll(b.id);
          return b.id;
        }),
    idle: async () => {
      while (running.size) await Promise.all([...running.values()]);
      await withdrawals.idle();
    },
    close() {
      off();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
