/**
 * Jobs and restarts: expiry and reminders, what startup does with a previous process's
 * leftovers (recoveryAction decides, `due` selects), pending requests judged again after a
 * policy change, and the approved requests sent once sends are unfrozen.
 */
import { WITHDRAWALS } from '../shell.js';
import { expiryDue, reminderDue } from '../rules.js';
import type { WithdrawalRequest } from '../types.js';
import { due, recheckFacts, type ServiceDeps } from './deps.js';
import { valuationNow } from '../recheck.js';

export function recoveryOps({ store, shell, sender, reconciler, policy, groups, logger, prices }: ServiceDeps) {
  const { context, commitOn, commitOnAll } = shell;
  async function expireDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await commitOnAll({ type: 'expire' }, (r) => expiryDue(r, ctx.now), ctx);
    return events.map((e) => e.request);
  }

  async function remindersDue(): Promise<WithdrawalRequest[]> {
    const ctx = context();
    const events = await commitOnAll(
      { type: 'remind' },
      (r) => reminderDue(r, ctx.now, ctx.policy.withdrawals.remind_before),
      ctx,
    );
    return events.map((e) => e.request);
  }

  async function recover() {
    // What happens to each request left by the previous process is the decider's (recoveryAction).
    const ctx = context();
    const marked = await commitOnAll({ type: 'mark-unknown-at-startup' }, due(sender, ctx.now, 'mark-unknown'), ctx);
    const markedUnknown = marked.map((e) => e.request.id);
    if (marked.length) {
      logger.warn(
        { ids: markedUnknown },
        'withdrawals found executing at startup are now unknown and will be reconciled',
      );
    }
    const expiredUnsent = await commitOnAll({ type: 'expire-unsent' }, due(sender, ctx.now, 'expire-unsent'), ctx);
    if (expiredUnsent.length) {
      logger.warn(
        { ids: expiredUnsent.map((e) => e.request.id) },
        'approved withdrawals past their expiry were not sent',
      );
    }
    const resumed = store.find(WITHDRAWALS, due(sender, ctx.now, 'send')).map((r) => {
      logger.warn({ id: r.id }, 'resuming an approved withdrawal that was never sent');
      void sender.start(r);
      return r.id;
    });
    const reconcile = await reconciler.run();
    const expired = (await expireDue()).map((r) => r.id);
    return { markedUnknown, resumed, reconcile, expired };
  }

  /** After a policy change: every pending request judged under the policy in force; those now complete are sent. */
  async function recheckPending(): Promise<WithdrawalRequest[]> {
    const changed: WithdrawalRequest[] = [];
    for (const r of store.find(WITHDRAWALS, (x) => x.state === 'pending' && !x.batch)) {
      // Batch rows are never approved one at a time (decidePolicyRecheck refuses them too).
      // The facts against the tier at the value now: the decider judges the request at it.
      const facts = await recheckFacts(policy.current(), groups, r, valuationNow(r, prices?.()));
      const applied = await commitOn(r.id, { type: 'recheck', facts });
      if (!applied.event) continue;
      changed.push(applied.event.request);
      if (applied.event.type === 'approved') void sender.start(applied.event.request);
    }
    return changed;
  }

  async function sendApproved() {
    // A send held by the freeze a moment ago may still be finishing: once it has, its request
    // is plainly `approved` again and is picked up below (the claim still makes it once).
    await sender.idle();
    const ctx = context();
    const expiredUnsent = await commitOnAll({ type: 'expire-unsent' }, due(sender, ctx.now, 'expire-unsent'), ctx);
    const sent = store.find(WITHDRAWALS, due(sender, ctx.now, 'send')).map((r) => {
      void sender.start(r);
      return r.id;
    });
    return { sent, expired: expiredUnsent.map((e) => e.request.id) };
  }

  /** Approved requests held by a limit: tried again (the claim re-judges them), or expired unsent past their expiry. */
  async function retryHeld(): Promise<string[]> {
    const ctx = context();
    const held = (r: WithdrawalRequest) => r.hold?.kind === 'limit';
    await commitOnAll({ type: 'expire-unsent' }, (r) => held(r) && due(sender, ctx.now, 'expire-unsent')(r), ctx);
    return store
      .find(WITHDRAWALS, (r) => held(r) && due(sender, ctx.now, 'send')(r))
      .map((r) => {
        void sender.start(r);
        return r.id;
      });
  }

  return { expireDue, remindersDue, recover, recheckPending, sendApproved, retryHeld };
}
