/**
 * The I/O half of the decider: reads a request inside a store commit, asks `decide`, and
 * writes what the decision says (the next state, its audit entry, and through `onChange` its
 * notifications) in that same commit, so they are durable together or not at all. `onChange`
 * is the one hook on a change: the service hands it to its subscribers (the app's notifier,
 * metrics and balance watch: src/app/withdrawals.ts); there is no second, after-commit channel.
 */
import { AWAY } from '../away/state.js';
import { serializeError, type Logger } from '../log.js';
import { collection, type Reads, type Store, type Tx } from '../store/index.js';
import type { PolicySource } from '../policy/source.js';
import { appendAudit } from '../audit/log.js';
import { decide, type DecideContext, type Decision, type WithdrawalCommand } from './decide/index.js';
import { paidSummary } from './paid-summary.js';
import type { AllowlistApprovals } from './rules.js';
import type { PriceSnapshot } from '../prices/types.js';
import type { ScreeningFacts } from '../screening/types.js';
import type { DecisionOutcome, WithdrawalEvent, WithdrawalRequest } from './types.js';

/** Every withdrawal request by id; the persisted name must never change. */
export const WITHDRAWALS = collection<WithdrawalRequest>('withdrawals');

/** A decision taken inside a commit, and the event its change produced (what changed, for the caller). */
export interface Applied<D extends Decision<string> = Decision<string>> {
  decision: D;
  event?: WithdrawalEvent;
}

export interface ShellOptions {
  store: Store;
  policy: PolicySource;
  /** When each allowlisted address was approved (governed policy), read at each decision. */
  allowlistApprovals?: () => AllowlistApprovals | undefined;
  /** The price cache, read at each decision (the rule table's values at the policy price). */
  prices?: (() => PriceSnapshot) | undefined;
  /** The sanctions list and the provider's cached answers, read at each decision (src/screening). */
  screening?: (() => ScreeningFacts) | undefined;
  now: () => number;
  logger: Logger;
  onChange?: (event: WithdrawalEvent, tx: Tx) => void;
  /**
   * Requests the limits count that are not stored as requests (yet): a pending batch payout's rows
   * (src/batches/), so a batch waiting for approval fills the windows as a pending request does.
   */
  counted?: ((read: Reads) => readonly WithdrawalRequest[]) | undefined;
}

export type Shell = ReturnType<typeof createShell>;

/** Work done inside a withdrawal's commit before its decision: a message refuses the decision. */
export type InCommit = (tx: Tx) => string | undefined;

export function createShell(o: ShellOptions) {
  const { store, logger } = o;
  const stored = (id: string) => store.get(WITHDRAWALS, id);
  /** Every request the limits' windows count, as read in this commit: the stored ones, then the counted elsewhere. */
  const existing = (read: Reads): readonly WithdrawalRequest[] => {
    const extra = o.counted?.(read);
    return extra?.length ? [...read.all(WITHDRAWALS), ...extra] : read.all(WITHDRAWALS);
  };
  const context = (t = o.now(), p = o.policy.current()): DecideContext => ({
    now: t,
    policy: p,
    allowlistApprovals: o.allowlistApprovals?.(),
    prices: o.prices?.(),
    screening: o.screening?.(),
  });

  /** Writes the request and hands the change to onChange inside the same transaction. */
  function save(tx: Tx, req: WithdrawalRequest, type: WithdrawalEvent['type']): WithdrawalEvent {
    tx.put(WITHDRAWALS, req.id, req);
    const event: WithdrawalEvent = { type, request: tx.get(WITHDRAWALS, req.id)! };
    if (o.onChange) {
      try {
        o.onChange(event, tx);
      } catch (err) {
        logger.error({ err: serializeError(err), event: type, id: req.id }, 'withdrawal onChange hook failed');
      }
    }
    return event;
  }

  /** Inside a commit: decides on the request as it is now, and writes what the decision says. */
  function apply<C extends WithdrawalCommand>(
    tx: Tx,
    command: C,
    cur: WithdrawalRequest | undefined,
    ctx: DecideContext = context(),
  ): Applied<ReturnType<typeof decide<C>>> {
    // Every other request as stored in this commit: the limits' windows are judged on what is durable with it.
    // The away records too: a delegation is judged as it stands in this commit, not as read before it.
    const decision = decide(command, cur, {
      ...ctx,
      requests: ctx.requests ?? (() => existing(tx)),
      paid: ctx.paid ?? paidSummary(tx),
      away: ctx.away ?? (() => tx.all(AWAY)),
    });
    switch (decision.kind) {
      case 'refused':
      case 'unchanged':
        return { decision };
      case 'noted':
        appendAudit(tx, decision.audit);
        return { decision };
      case 'changed':
        appendAudit(tx, decision.audit);
        return { decision, event: save(tx, decision.next, decision.event) };
      default: {
        const unhandled: never = decision;
        throw new Error(`unhandled withdrawal decision ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /**
   * One command on one stored request, in its own commit (a compare-and-set: decided on what is stored now).
   * `first` runs in that same commit before the decision (a passkey's challenge spent with the approval it
   * proves); a message from it refuses the step-up and decides nothing.
   */
  function commitOn<C extends WithdrawalCommand>(
    id: string,
    command: C,
    ctx?: DecideContext,
    first?: InCommit,
  ): Promise<Applied<ReturnType<typeof decide<C>>>> {
    return store.commit((tx) => {
      const refused = first?.(tx);
      if (refused !== undefined)
        return { decision: { kind: 'refused', reason: 'step_up_required', message: refused } } as Applied<
          ReturnType<typeof decide<C>>
        >;
      return apply(tx, command, tx.get(WITHDRAWALS, id), ctx ?? context());
    });
  }

  /** The same command for every request that `due` selects, in one commit; the events of the changes. */
  async function commitOnAll(
    command: WithdrawalCommand,
    due: (r: WithdrawalRequest) => boolean,
    ctx: DecideContext = context(),
  ): Promise<WithdrawalEvent[]> {
    if (!store.find(WITHDRAWALS, due).length) return [];
    return store.commit((tx) =>
      tx.all(WITHDRAWALS).flatMap((r) => {
        if (!due(r)) return [];
        const { event } = apply(tx, command, r, ctx);
        return event ? [event] : [];
      }),
    );
  }

  /** A decision as callers see it: the refusal, or the request after it. */
  function outcomeOf({ decision, event }: Applied<Decision>): DecisionOutcome {
    if (decision.kind === 'refused') return { ok: false, reason: decision.reason, message: decision.message };
    const request = event?.request ?? (decision.kind === 'unchanged' ? decision.request : undefined);
    if (!request) throw new Error('a withdrawal decision produced no request');
    return { ok: true, request };
  }

  return { store, stored, existing, context, apply, commitOn, commitOnAll, outcomeOf };
}
