/**
 * The freeze switch's shell: resolves who is an admin, decides (decide.ts), and writes the
 * freeze, its audit entry and its notifications (`onChange`, the outbox) in one commit. On
 * unfreeze, the withdrawals approved meanwhile are sent once, through the usual claim.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../audit/log.js';
import type { Logger } from '../log.js';
import { hasRole, type GroupResolver } from '../policy/people.js';
import type { Policy } from '../policy/schema.js';
import type { Store, Tx } from '../store/index.js';
import { decideFreeze, type FreezeCommand, type FreezeRefusal, type FreezeRefusalFacts } from './decide.js';
import { currentFreeze, FREEZES, type FreezeRecord } from './state.js';
import type { PolicySource } from '../policy/source.js';

export type FreezeEvent = { type: 'frozen' | 'unfreeze-requested' | 'unfrozen'; freeze: FreezeRecord };

export type FreezeOutcome =
  | { ok: true; event: FreezeEvent['type']; freeze: FreezeRecord; secondAdminMissing: boolean }
  | ({ ok: false; reason: FreezeRefusal; message: string } & FreezeRefusalFacts);

export interface FreezeService {
  freeze(user: string, reason: string): Promise<FreezeOutcome>;
  /** `confirm`: the freeze notice's button (may confirm another admin's request); the command only asks. */
  unfreeze(user: string, o: { confirm: boolean; freezeId?: string }): Promise<FreezeOutcome>;
  current(): FreezeRecord | undefined;
}

export function createFreezeService(o: {
  store: Store;
  policy: PolicySource;
  groups?: GroupResolver;
  now: () => number;
  logger: Logger;
  /** The withdrawals service's `sendApproved` (structural: the withdrawals import the freeze, not the reverse). */
  withdrawals: { sendApproved(): Promise<{ sent: readonly string[]; expired: readonly string[] }> };
  /** Inside the change's commit (the notice and the cards, through the outbox). Must not throw. */
  onChange?: (event: FreezeEvent, tx: Tx) => void;
}): FreezeService {
  async function run(command: FreezeCommand): Promise<FreezeOutcome> {
    const r = await o.store.commit((tx) => {
      const d = decideFreeze(command, currentFreeze(tx), o.now());
      if (d.audit) appendAudit(tx, d.audit);
      if (d.kind === 'refused') return d;
      tx.put(FREEZES, d.next.id, d.next);
      const event: FreezeEvent = { type: d.event, freeze: d.next };
      try {
        o.onChange?.(event, tx);
      } catch (err) {
        o.logger.error({ err, event: d.event }, 'freeze notification hook failed');
      }
      return { ...d, event };
    });
    if (r.kind === 'refused') {
      const { kind: _k, audit: _a, ...refusal } = r;
      return { ok: false, ...refusal };
    }
    o.logger.warn({ event: r.event.type, by: command.user }, 'sends freeze changed');
    if (r.event.type === 'unfrozen') {
      const { sent, expired } = await o.withdrawals.sendApproved();
      if (sent.length || expired.length) o.logger.info({ sent, expired }, 'approved withdrawals after unfreeze');
    }
    return {
      ok: true,
      event: r.event.type,
      freeze: r.event.freeze,
      secondAdminMissing: !secondAdminPossible(o.policy.current()),
    };
  }
  const isAdmin = (user: string) => hasRole(o.policy.current(), 'admins', user, o.groups);
  return {
    freeze: async (user, reason) =>
      run({ type: 'freeze', user, isAdmin: await isAdmin(user), reason: String(reason ?? ''), id: randomUUID() }),
    unfreeze: async (user, u) =>
      run({
        type: 'unfreeze',
        user,
        isAdmin: await isAdmin(user),
        confirm: u.confirm,
        ...(u.freezeId !== undefined ? { freezeId: u.freezeId } : {}),
      }),
    current: () => currentFreeze(o.store),
  };
}

/** A second admin can exist: more than one entry, or a user group (whose members we cannot count here). */
export function secondAdminPossible(p: Policy): boolean {
  const admins = p.people.admins;
  return admins.length > 1 || admins.some((a) => !/^[UW]/.test(a));
}
