/**
 * The one send of an approved withdrawal (ARCHITECTURE.md invariants 1, 3, 4): claim it
 * (approved -> executing, compare-and-set, durable before the call), call the wallet service
 * once with the merchantReference fixed at creation, record the outcome. Never retried: an
 * answer that may hide a send becomes `unknown`, for reconciliation.
 */
import type { WithdrawalScreening } from '../screening/types.js';
import { serializeError, type Logger } from '../log.js';
import type { WalletClient } from '../wallet/client.js';
import { frozenFact } from '../freeze/state.js';
import { WITHDRAWALS, type Shell } from './shell.js';
import type { SendOutcome } from './wallet-answer.js';
import type { RecheckFacts } from './recheck.js';
import type { Valuation } from '../prices/types.js';
import type { BalanceSource, WithdrawalHooks, WithdrawalRequest } from './types.js';

const withFrozen = (frozen: ReturnType<typeof frozenFact>) => (frozen ? { frozen } : {});

/**
 * What the approval that may complete a quorum starts for the send ahead of its own commit
 * (`Sender.prepare`): the balance read the claim checks, which then runs beside that commit
 * instead of after it, and the outbox's giving way until the wallet call is on its way.
 */
export interface HeadStart {
  balance?: Promise<string | undefined>;
  /** Ends the outbox's giving way (src/util/give-way.ts); called once the call is under way, or when nothing is sent. */
  release(): void;
}

export interface Sender {
  /** Sends it once; resolves (never rejects) with the request once the outcome is recorded. */
  start(req: WithdrawalRequest, head?: HeadStart): Promise<WithdrawalRequest>;
  /**
   * The head start of a send that may follow (an idle click reaches the wallet service one
   * round trip sooner). Passed to `start`, or released when the approval did not complete it.
   */
  prepare(req: WithdrawalRequest): HeadStart;
  /** In flight in this process, so recover() never mistakes it for a crash's leftover. */
  inFlight(id: string): boolean;
  idle(): Promise<void>;
}

export function createSender(
  shell: Shell,
  o: {
    wallet: Pick<WalletClient, 'withdraw'>;
    hooks: WithdrawalHooks;
    logger: Logger;
    /** Facts to judge the request again under the policy in force before claiming it (it may have changed since the approval). */
    recheckFacts?: (req: WithdrawalRequest, valuation: Valuation | undefined) => Promise<RecheckFacts | undefined>;
    balances?: BalanceSource;
    /** The value at a fresh price (the cache), re-checked in the claim; undefined: the app has no prices. */
    valuation?: (req: WithdrawalRequest) => Valuation | undefined;
    /** Holds the outbox's posts back from a send's start until its wallet call is on its way. */
    goFirst?: () => () => void;
    /** The sanctions provider asked about the destination before the claim (its answer is then a fact of it). */
    screening?: Pick<WithdrawalScreening, 'ask'>;
  },
): Sender {
  const { wallet, hooks, logger } = o;
  const running = new Map<string, Promise<WithdrawalRequest>>();

  function readBalance(req: WithdrawalRequest): Promise<string | undefined> | undefined {
    if (!o.balances) return undefined;
    const p = o.balances.read(req.currency, req.network);
    // Awaited by the send; an approval refused after all never awaits it, and its failure is the send's to report.
    p.catch(() => undefined);
    return p;
  }

  function prepare(req: WithdrawalRequest): HeadStart {
    const release = o.goFirst?.() ?? (() => undefined);
    if (!o.balances) return { release };
    // Started a turn later: a commit just made (the approval) writes first, then the read's
    // request is built while the disk works.
    const balance = Promise.resolve().then(() => readBalance(req));
    balance.catch(() => undefined);
    return { balance, release };
  }

  async function send(approved: WithdrawalRequest, head: HeadStart): Promise<WithdrawalRequest> {
    // Whoever wins this compare-and-set sends, and a restart that finds `executing` knows it may have been sent.
    // The value read once: the re-check and the claim (its recorded sendValuation) judge the same price.
    const valuation = o.valuation?.(approved);
    const recheck = o.recheckFacts ? await o.recheckFacts(approved, valuation) : undefined;
    await o.screening?.ask(approved.destination);
    // The balance checked again for the send (a fact for the claim; unreadable: sent anyway), read
    // from its last approval on: beside that approval's commit when it gave the send a head start.
    const balance = approved.state === 'approved' ? await (head.balance ?? readBalance(approved)) : undefined;
    // The freeze is read inside the claim's commit: a freeze committed first always holds the send.
    const claim = await shell.store.commit((tx) =>
      shell.apply(
        tx,
        {
          type: 'claim-for-sending',
          ...withFrozen(frozenFact(tx)),
          ...(recheck ? { recheck } : {}),
          ...(balance !== undefined ? { balance } : {}),
          ...(valuation ? { valuation } : {}),
        },
        tx.get(WITHDRAWALS, approved.id),
      ),
    );
    if (claim.event?.type === 'failed') {
      logger.warn({ id: approved.id, balance }, 'withdrawal not sent: the balance does not cover it');
      return claim.event.request;
    }
    if (!claim.event) return (claim.decision.kind === 'unchanged' ? claim.decision.request : undefined) ?? approved;
    if (claim.event.type !== 'executing') {
      // The policy in force no longer lets it go as approved: back to waiting, or refused. Nothing is sent.
      logger.warn(
        { id: approved.id, outcome: claim.event.type },
        'withdrawal not sent: the policy in force asks for more',
      );
      return claim.event.request;
    }
    const req = claim.event.request;
    if (hooks.afterExecutingDurable) await hooks.afterExecutingDurable(req);
    let outcome: SendOutcome;
    try {
      const call = wallet.withdraw({
        amount: req.amount,
        currency: req.currency,
        network: req.network,
        destinationAddress: req.destination,
        clientEmail: req.clientEmail,
        merchantReference: req.merchantReference,
        ...(req.note ? { description: req.note } : {}),
      });
      // Its request is on its way (after this turn): the posts held back for it may go. Not held
      // until the answer: sends that keep coming would then keep the posts waiting their cap.
      setImmediate(head.release);
      outcome = { ok: true, answer: await call };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (hooks.afterWalletAnswered) await hooks.afterWalletAnswered(req, outcome.ok ? 'success' : 'error');

    const { event } = await shell.commitOn(req.id, { type: 'record-send-outcome', requestId: req.id, outcome });
    const mismatches = event?.request.result?.source === 'wallet' ? event.request.result.mismatches : undefined;
    if (mismatches?.length)
      logger.error(
        { id: req.id, mismatches },
        'the wallet service answered for something other than what was approved',
      );
    // No event: something else (a webhook) settled it meanwhile; the answer went to the audit log only.
    const after = event?.request ?? shell.stored(req.id) ?? req;
    logger.info({ id: req.id, state: after.state }, 'withdrawal send recorded');
    return after;
  }

  // Requests whose send was asked for again while one ran (see start).
  const askedAgain = new Set<string>();

  function start(req: WithdrawalRequest, given?: HeadStart): Promise<WithdrawalRequest> {
    // One send per request in this process: a second start joins the first (a second entry
    // would be removed by the loser's finally while the winner still calls the wallet).
    const already = running.get(req.id);
    if (already) {
      given?.release();
      askedAgain.add(req.id);
      return already;
    }
    // Only an approved request is claimed for a send (recovery also restarts executing ones).
    const head = given ?? (req.state === 'approved' ? prepare(req) : { release: () => undefined });
    const p = send(req, head)
      .catch((err: unknown) => {
        // Only the store can fail here; a restart resumes it (approved) or reconciles it (executing).
        logger.error(
          { err: serializeError(err), id: req.id },
          'could not record the outcome of a withdrawal; it will be reconciled after restart',
        );
        return shell.stored(req.id) ?? req;
      })
      .finally(() => {
        // Whatever happened (nothing sent, or the call already under way): the posts go on.
        head.release();
        running.delete(req.id);
        // The send that joined this one may be the approval that completed the request again
        // after this one found it waiting (the policy in force asked for more): it still waits for
        // its send. The claim's compare-and-set keeps it to one.
        const now = askedAgain.delete(req.id) ? shell.stored(req.id) : undefined;
        if (now?.state === 'approved') void start(now);
      });
    running.set(req.id, p);
    return p;
  }

  return {
    start,
    prepare,
    inFlight: (id) => running.has(id),
    idle: async () => {
      while (running.size) await Promise.all([...running.values()]);
    },
  };
}
