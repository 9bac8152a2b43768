/**
 * A new request: the input admitted, the balance read (a fact for the `balance` rule, before the
 * commit since it is a network call), then decided and written in one commit.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../../audit/log.js';
import { readWithin, REQUEST_BALANCE_WAIT_MS } from '../../balances/book.js';
import { hasRole } from '../../policy/people.js';
import { admitRequest } from '../rules.js';
import { paidSummary } from '../paid-summary.js';
import { WITHDRAWALS } from '../shell.js';
import type { RequestInput, RequestOutcome } from '../types.js';
import { clientOnRecord } from '../../clients/known.js';
import type { Reads } from '../../store/index.js';
import type { ServiceDeps } from './deps.js';
import { listRef } from '../../screening/list.js';

export function requestOps({ store, shell, policy, now, groups, logger, balances, prices, screening }: ServiceDeps) {
  const { context } = shell;
  async function request(input: RequestInput, requesterId: string): Promise<RequestOutcome> {
    const p = policy.current();
    // The price cache as it is now (no network call): the value recorded on the request, its tier and limits.
    const snapshot = prices?.();
    const checked = admitRequest(p, input, await hasRole(p, 'requesters', requesterId, groups), snapshot);
    if (!checked.ok) return checked;
    // A fact for the `balance` rule, read before the commit (it is a network call); null: unreadable.
    // Capped (book.ts), so that the person is answered within Slack's 3 seconds.
    const balance = balances
      ? ((await readWithin(balances, checked.currency.name, checked.network.name, REQUEST_BALANCE_WAIT_MS)) ?? null)
      : undefined;
    // The sanctions provider, when there is one, is asked before the commit too (its answer is a fact there).
    await screening?.ask(checked.destination);
    const { decision, event } = await store.commit((tx) => {
      const command = {
        type: 'request',
        requester: requesterId,
        checked,
        ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        ...(input.requestedFrom ? { requestedFrom: input.requestedFrom } : {}),
        // The request it repeats, as stored in this commit: a report of it committed first refuses the repeat.
        ...(input.repeatOf ? { repeatOf: { id: input.repeatOf, original: tx.get(WITHDRAWALS, input.repeatOf) } } : {}),
        id: randomUUID(),
        merchantReference: randomUUID(),
        existing: shell.existing(tx),
        newClient: isNewClient(tx, checked.clientEmail),
        ...(balance !== undefined ? { balance } : {}),
        ...(snapshot ? { prices: snapshot } : {}),
      } as const;
      const applied = shell.apply(tx, command, undefined, context(now(), p));
      // The balance gate's refusal, and the repeat gate's (one payout, one request: hold/decide.ts), are
      // decisions of their own: audited with why (the other rules refuse input).
      const gate = applied.decision.kind === 'refused' ? applied.decision.reason : undefined;
      const screened = gate === 'sanctions' || gate === 'stale_list';
      const list = screened ? screening?.facts().list : undefined;
      if (applied.decision.kind === 'refused' && (gate === 'balance' || gate === 'repeat' || screened))
        appendAudit(tx, {
          at: new Date(now()).toISOString(),
          actor: requesterId,
          action: 'refuse',
          subject: command.id,
          details: {
            amount: checked.amount,
            currency: checked.currency.name,
            network: checked.network.name,
            destination: checked.destination,
            rule: gate,
            ...(gate === 'balance' ? { balance } : {}),
            ...(input.repeatOf ? { repeatOf: input.repeatOf } : {}),
            // The list the refusal was judged with, by its fingerprint.
            ...(list ? { list: listRef(list) } : {}),
            reason: applied.decision.message,
          },
        });
      // A sanctioned destination: the admins are told at once, in private (a stale list's refusal is the requester's to read).
      if (applied.decision.kind === 'refused' && gate === 'sanctions')
        screening?.tell?.(tx, {
          kind: 'request-refused',
          at: new Date(now()).toISOString(),
          address: checked.destination,
          amount: checked.amount,
          currency: checked.currency.name,
          network: checked.network.name,
          requester: requesterId,
          reason: applied.decision.message,
          ...(list ? { list: { date: list.date, sha256: list.sha256 } } : {}),
          // A form submitted twice (Slack timed out the first answer) is one refusal for the admins.
          ...(input.idempotencyKey ? { once: `refused:${requesterId}:${input.idempotencyKey}` } : {}),
        });
      return applied;
    });
    if (decision.kind === 'refused') return { ok: false, rule: decision.reason, message: decision.message };
    if (decision.kind === 'unchanged' && decision.request) return { ok: true, request: decision.request };
    if (!event) throw new Error('a withdrawal request produced no record');
    logger.info(
      { id: event.request.id, amount: event.request.amount, currency: event.request.currency },
      'withdrawal requested',
    );
    return { ok: true, request: event.request };
  }

  return { request };
}

/** A fact for the request: whether the app has no record of the client (src/clients/known.ts says what counts). */
export function isNewClient(read: Reads, email: string): boolean {
  const wanted = email.trim().toLowerCase();
  const completedFrom = read
    .all(WITHDRAWALS)
    .some((r) => r.state === 'completed' && r.clientEmail.trim().toLowerCase() === wanted);
  return clientOnRecord(read, email, completedFrom || paidSummary(read).client(email)) === undefined;
}
