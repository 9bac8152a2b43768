/**
 * The batch payout service: the shell around the pure parts (validate.ts, judge.ts, decide.ts).
 * Each operation resolves what needs I/O (roles, group membership), then inside ONE store commit
 * reads the batch, judges it by the rule table on its total, and writes the batch, its audit
 * entry and (at the last approval) every row as an approved withdrawal request, together. The
 * rows are then sent by the runner (runner.ts), each through the withdrawal service's own claim.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../audit/log.js';
import { hasRole, matches } from '../policy/people.js';
import type { Reads, Tx } from '../store/index.js';
import { WITHDRAWALS } from '../withdrawals/shell.js';
import { paidSummary } from '../withdrawals/paid-summary.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import {
  approveBatch,
  batchStateRefusal,
  needNow,
  needOf,
  precheckBatch,
  progressOf,
  rejectBatch,
  stopBatch,
  type BatchRefusal,
  type Progress,
} from './decide.js';
import type { Policy } from '../policy/schema.js';
import type { StepUpNeed, StepUpProof } from '../stepup/threshold.js';
import { mustIncludeEntries } from '../withdrawals/value-rules.js';
import { batchTier, judgeBatch, totalsOf, type BatchJudgement } from './judge.js';
import { payoutsFingerprint } from './fingerprint.js';
import { fileSha256, rowRequestId } from './reference.js';
import { resultCsv } from './results.js';
import { pendingRows, rowRequest } from './rows.js';
import type { Batch } from './types.js';
import { askAll, askWithin, sanctionedSince, tellSanctioned } from './screening.js';
import { BATCHES, expireIn } from './expire.js';

export { BATCHES };
import type {
  BatchEvent,
  BatchEventType,
  BatchListener,
  BatchServiceOptions,
  SubmitInput,
  SubmitOutcome,
} from './events.js';
import { validatePayoutFile } from './validate.js';

const NOTHING_JUDGED: BatchJudgement = {
  refusals: [],
  holds: [],
  stepUp: false,
  stepUpNeed: 'none',
  newDestinations: 0,
  unlisted: 0,
  allowlists: {},
};
const OTHER_FILE =
  'This confirmation was asked for another file: it approves nothing here. Press Approve on this batch payout’s card again.';

/** The same file again within this long is flagged, and needs the requester to confirm. */
export const REPEAT_WINDOW_MS = 30 * 24 * 3_600_000;

/** For the withdrawal service's `counted`: the rows of every pending batch, as the limits count them. */
export const countedBatchRows = (read: Reads): WithdrawalRequest[] => read.all(BATCHES).flatMap(pendingRows);

export type { BatchEvent, BatchEventType, BatchListener, BatchServiceOptions, SubmitInput, SubmitOutcome };

export function batchOps(o: BatchServiceOptions) {
  const { store, withdrawals, policy, groups, logger } = o;
  const now = o.now ?? Date.now;
  const listeners: BatchListener[] = [];
  const emit = (tx: Tx, type: BatchEventType, batch: Batch) => {
    for (const l of [...listeners]) l({ type, batch }, tx);
  };
  const rowsOf = (read: Reads, b: Batch): WithdrawalRequest[] =>
    b.rows.flatMap((r) => read.get(WITHDRAWALS, rowRequestId(b.id, r.row)) ?? []);
  /** Every request the limits count beside this batch's rows: the stored ones and other pending batches' rows. */
  const othersThan = (read: Reads, id: string): WithdrawalRequest[] => [
    ...read.all(WITHDRAWALS),
    ...read.all(BATCHES).flatMap((b) => (b.id === id ? [] : pendingRows(b))),
  ];

  async function submit(input: SubmitInput, requester: string): Promise<SubmitOutcome> {
    const p = policy.current();
    if (!(await hasRole(p, 'requesters', requester, groups)))
      return {
        ok: false,
        kind: 'refused',
        message: 'You are not allowed to request withdrawals: only the people listed under people.requesters can.',
      };
    const snapshot = o.prices?.();
    const validated = validatePayoutFile(input.text, p, snapshot);
    if (!validated.ok) return { ok: false, kind: 'errors', errors: validated.errors };
    // The provider, when there is one, is asked about each destination before the commit (its answers are facts there).
    if (o.screening) await askAll(o.screening, validated.rows);
    const sha256 = fileSha256(input.text);
    const fingerprint = payoutsFingerprint(validated.rows);
    const t = now();
    const out = await store.commit((tx): SubmitOutcome => {
      // The same payouts, not only the same bytes (a re-saved or re-sorted file is the same payout run).
      const earlier = tx
        .all(BATCHES)
        .filter(
          (b) =>
            (b.fingerprint === fingerprint || b.sha256 === sha256) && Date.parse(b.createdAt) > t - REPEAT_WINDOW_MS,
        )
        .at(-1);
      if (earlier && !input.confirmRepeat)
        return {
          ok: false,
          kind: 'repeat',
          repeatOf: { id: earlier.id, at: earlier.createdAt, state: earlier.state },
          message: `This exact file was submitted on ${earlier.createdAt.slice(0, 10)} (that batch is ${earlier.state}). Confirm to pay it again.`,
        };
      const totals = totalsOf(validated.rows, snapshot);
      const tier = batchTier(p, totals);
      if ('refused' in tier)
        return { ok: false, kind: 'errors', errors: [{ row: 0, column: 'amount', reason: tier.refused }] };
      const at = new Date(t).toISOString();
      const draft: Batch = {
        id: randomUUID(),
        requester,
        fileName: input.fileName.slice(0, 200),
        sha256,
        fingerprint,
        state: 'pending',
        rows: validated.rows,
        totals,
        tier,
        floorTier: tier,
        stepUp: false,
        approvals: [],
        newDestinations: 0,
        unlisted: 0,
        ...(earlier ? { repeatOf: { id: earlier.id, at: earlier.createdAt } } : {}),
        createdAt: at,
        expiresAt: new Date(t + p.withdrawals.expires_after).toISOString(),
      };
      const judged = judgeBatch(
        draft.rows.map((r) => rowRequest(draft, r, 'pending', at)),
        totals,
        {
          step: 'request',
          now: t,
          policy: p,
          prices: snapshot,
          others: othersThan(tx, draft.id),
          allowlistApprovals: o.allowlistApprovals?.(),
          screening: o.screening?.facts(),
          paid: paidSummary(tx),
        },
      );
      // A sanctioned destination: the admins are told at once, in private, as for a single request.
      for (const row of judged.screening?.sanctioned ?? []) tellSanctioned(o.screening, tx, draft, row, judged);
      if (judged.refusals.length) return { ok: false, kind: 'errors', errors: judged.refusals };
      if (judged.staleList) return { ok: false, kind: 'refused', message: judged.staleList };
      if (judged.holds.length)
        return { ok: false, kind: 'refused', message: `The batch would cross a limit: ${judged.holds.join('; ')}.` };
      const batch: Batch = {
        ...draft,
        tier: judged.tier ?? tier,
        stepUp: judged.stepUp,
        ...(judged.stepUpNeed !== 'none' ? { stepUpNeed: judged.stepUpNeed } : {}),
        newDestinations: judged.newDestinations,
        unlisted: judged.unlisted,
        ...(judged.screening ? { screening: judged.screening } : {}),
      };
      tx.put(BATCHES, batch.id, batch);
      appendAudit(tx, {
        at,
        actor: requester,
        action: 'batch_request',
        subject: batch.id,
        details: {
          fileName: batch.fileName,
          sha256,
          rows: batch.rows.length,
          totals: batch.totals.perCurrency,
          value: batch.totals.value,
          tier: batch.tier,
          ...(batch.repeatOf ? { repeatOf: batch.repeatOf.id, confirmed: 'the same file again within 30 days' } : {}),
        },
      });
      emit(tx, 'requested', batch);
      return { ok: true, batch };
    });
    if (out.ok) logger.info({ batch: out.batch.id, rows: out.batch.rows.length }, 'batch payout requested');
    return out;
  }

  /** The batch judged by the rule table now, as an approval would be (the tier and the step-up may have risen). */
  const judgeNow = (read: Reads, cur: Batch, t: number, p: Policy, snapshot = o.prices?.()): BatchJudgement =>
    judgeBatch(
      cur.rows.map((r) => rowRequest(cur, r, 'pending', cur.createdAt)),
      totalsOf(cur.rows, snapshot),
      {
        step: 'approve',
        now: t,
        policy: p,
        prices: snapshot,
        others: othersThan(read, cur.id),
        allowlistApprovals: o.allowlistApprovals?.(),
        screening: o.screening?.facts(),
        paid: paidSummary(read),
      },
    );

  /** Whether `user` is an approver, and the must_include entries they match (I/O: group membership). */
  async function approverFacts(b: Batch | undefined, user: string, p: Policy) {
    const isApprover = await hasRole(p, 'approvers', user, groups);
    // Every must_include of each currency's tier list, as the single path asks: the tier judged at the
    // approval may be higher than the batch's (a limit escalating it to the top tier).
    const must = new Set(b?.tier.mustInclude ?? []);
    for (const c of Object.keys(b?.totals.perCurrency ?? {})) for (const e of mustIncludeEntries(p, c)) must.add(e);
    const satisfies: string[] = [];
    for (const e of must) if (await matches([e], user, groups)) satisfies.push(e);
    return { isApprover, satisfies };
  }

  /**
   * One approval of the whole batch. The last one writes every row as an approved request in
   * the same commit (the batch is `sending`); the runner then sends them (`sendAll`).
   */
  async function approve(
    id: string,
    user: string,
    facts: { stepUpFor?: string; proof?: StepUpProof; inCommit?: (tx: Tx) => string | undefined } = {},
  ): Promise<BatchRefusal | { ok: true; batch: Batch; complete: boolean }> {
    const p = policy.current();
    const before = store.get(BATCHES, id);
    const who = await approverFacts(before, user, p);
    // The provider is asked before the commit (its answers are facts there), as the single path does, for at most a second.
    if (o.screening && before?.state === 'pending' && who.isApprover) await askWithin(o.screening, before.rows, 1_000);
    const t = now();
    const { inCommit, ...proof } = facts;
    return store.commit((tx) => {
      // A passkey's challenge is spent in this commit, before the decision: an answer counts at most once.
      const spent = inCommit?.(tx);
      if (spent) return { ok: false as const, reason: 'step_up_required' as const, message: spent };
      const cur = tx.get(BATCHES, id);
      const at = new Date(t).toISOString();
      const judged = cur ? judgeNow(tx, cur, t, p) : NOTHING_JUDGED;
      // Listed since the request: the batch is rejected, as a single request is, and the admins told.
      const listed = cur && who.isApprover && !batchStateRefusal(cur, user, t);
      const gone = listed ? sanctionedSince(o.screening, tx, cur, judged, at) : undefined;
      if (gone) {
        emit(tx, 'rejected', gone.batch);
        return { ok: false as const, reason: 'policy' as const, message: gone.message };
      }
      const out = approveBatch(cur, { user, now: t, ...who, ...proof }, judged);
      if (!out.ok) return out;
      const batch: Batch = out.complete ? { ...out.batch, state: 'sending' } : out.batch;
      tx.put(BATCHES, id, batch);
      appendAudit(tx, {
        at,
        actor: user,
        action: 'batch_approve',
        subject: id,
        details: {
          sha256: batch.sha256,
          rows: batch.rows.length,
          approvals: batch.approvals.length,
          required: batch.tier.approvals,
          complete: out.complete,
          ...(batch.stepUp ? { stepUp: proof.proof ?? 'verified', stepUpFor: batch.sha256 } : {}),
        },
      });
      if (out.complete) {
        // Every row written approved, durable with the last approval: a crash from here on resumes the
        // sends (runner.ts), each row claimed once. The rows' expiry counts from now.
        const expiresAt = new Date(t + p.withdrawals.expires_after).toISOString();
        for (const r of batch.rows) {
          const req = { ...rowRequest(batch, r, 'approved', at, judged.allowlists[r.row]), expiresAt };
          if (!tx.get(WITHDRAWALS, req.id)) tx.put(WITHDRAWALS, req.id, req);
        }
      }
      emit(tx, out.complete ? 'approved' : 'approval-recorded', batch);
      return { ok: true as const, batch, complete: out.complete };
    });
  }

  /**
   * What confirms `user`'s approval now (none, a code or a passkey, judged as the approval will be), and
   * whether it would be refused for a reason other than its confirmation: asked before a code is spent
   * or a passkey page opened (as the single path's checkDecision). `stepUpFor`: the file the
   * confirmation is being asked for; another file's is refused here already.
   */
  async function check(
    id: string,
    user: string,
    stepUpFor?: string,
  ): Promise<{ need: StepUpNeed; refusal?: BatchRefusal }> {
    const p = policy.current();
    const b = store.get(BATCHES, id);
    const who = await approverFacts(b, user, p);
    const t = now();
    // One judgement for both answers: a thousand rows take a while, and Slack's trigger lives 3 seconds.
    const judged = b ? judgeNow(store, b, t, p) : NOTHING_JUDGED;
    const need = b ? needOf(b, judged) : 'none';
    if (b && stepUpFor !== undefined && stepUpFor !== b.sha256)
      return { need, refusal: { ok: false, reason: 'step_up_required', message: OTHER_FILE } };
    const out = approveBatch(b, { user, now: t, ...who, stepUpFor: b?.sha256, proof: 'passkey' }, judged);
    return out.ok ? { need } : { need, refusal: out };
  }

  /** Before a code is spent: the cheap checks of the stored batch (decide.ts precheckBatch); approve judges the rows. */
  async function precheck(id: string, user: string, stepUpFor: string): Promise<BatchRefusal | undefined> {
    const b = store.get(BATCHES, id);
    const isApprover = await hasRole(policy.current(), 'approvers', user, groups);
    return precheckBatch(b, { user, now: now(), isApprover, stepUpFor, otherFile: OTHER_FILE });
  }

  async function reject(id: string, user: string, reason: string): Promise<BatchRefusal | { ok: true; batch: Batch }> {
    const isApprover = await hasRole(policy.current(), 'approvers', user, groups);
    const t = now();
    return store.commit((tx) => {
      const out = rejectBatch(tx.get(BATCHES, id), { user, now: t, isApprover, reason });
      if (!out.ok) return out;
      tx.put(BATCHES, id, out.batch);
      appendAudit(tx, {
        at: new Date(t).toISOString(),
        actor: user,
        action: 'batch_reject',
        subject: id,
        details: { sha256: out.batch.sha256, rows: out.batch.rows.length, reason },
      });
      emit(tx, 'rejected', out.batch);
      return out;
    });
  }

  /**
   * An admin stops the rest: in one commit the batch is stopped and every row not yet claimed is
   * rejected (never sent). Rows already claimed stay with their send; the card lists which.
   */
  async function stop(id: string, admin: string): Promise<BatchRefusal | { ok: true; batch: Batch; stopped: number }> {
    const isAdmin = await hasRole(policy.current(), 'admins', admin, groups);
    const t = now();
    return store.commit((tx) => {
      const out = stopBatch(tx.get(BATCHES, id), { admin, now: t, isAdmin });
      if (!out.ok) return out;
      tx.put(BATCHES, id, out.batch);
      const stopped = withdrawals.stopBatchRows(tx, id, admin).length;
      appendAudit(tx, {
        at: new Date(t).toISOString(),
        actor: admin,
        action: 'batch_stop',
        subject: id,
        details: { sha256: out.batch.sha256, rows: out.batch.rows.length, stopped },
      });
      emit(tx, 'stopped', out.batch);
      return { ...out, stopped };
    });
  }

  const get = (id: string) => store.get(BATCHES, id);
  const progress = (id: string): Progress | undefined => {
    const b = get(id);
    return b ? progressOf(b, rowsOf(store, b)) : undefined;
  };

  return {
    submit,
    /** Pending batches past their expiry become expired (nothing was sent); returns them. */
    async expireDue(): Promise<Batch[]> {
      const t = now();
      if (!store.find(BATCHES, (b) => b.state === 'pending' && t >= Date.parse(b.expiresAt)).length) return [];
      return store.commit((tx) => expireIn(tx, t, emit));
    },
    approve,
    /** What confirms an approval now, from the totals (the card's 🔐 line follows it). */
    needNow: (id: string): StepUpNeed => needNow(get(id), policy.current(), o.prices?.()),
    check,
    precheck,
    reject,
    stop,
    get,
    list: () => store.all(BATCHES),
    rows: (id: string) => {
      const b = get(id);
      return b ? rowsOf(store, b) : [];
    },
    progress,
    results: (id: string) => {
      const b = get(id);
      return b ? resultCsv(b, (rid) => store.get(WITHDRAWALS, rid)) : undefined;
    },
    emit,
    subscribe(fn: BatchListener) {
      listeners.push(fn);
      return () => {
        const i = listeners.indexOf(fn);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
  };
}
