/**
 * The freeze switch in Slack: the freeze notice in the approvals channel (with its Unfreeze /
 * Confirm unfreeze button), and the cards edited so each shows "Frozen by @x: reason". Runs
 * inside the freeze's commit (FreezeService.onChange), so a notice is never lost.
 */
import type { KnownBlock } from '@slack/types';
import { FREEZES, type FreezeRecord } from '../freeze/state.js';
import { secondAdminPossible, type FreezeEvent } from '../freeze/service.js';
import { utcMinute } from '../format/time.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store, Tx } from '../store/index.js';
import { WITHDRAWALS } from '../withdrawals/index.js';
import { actions, context, header, section } from './blocks.js';
import { outside } from '../format/outside.js';
import { CARD_RENDERER, cardKey } from './withdrawal/index.js';
import type { PolicySource } from '../policy/source.js';

export const FREEZE_NOTICE_RENDERER = 'freeze_notice';
/** The notice's button: asks to unfreeze, or confirms another admin's request. */
export const UNFREEZE_ACTION = 'freeze_unfreeze';
export const freezeNoticeKey = (id: string) => `freeze:${id}`;

/** How to get a second admin, said wherever unfreezing would need one. */
export const SECOND_ADMIN_HOW =
  'Unfreezing needs a second, different admin, and the policy lists only one: add another Slack user id to `people.admins` in the policy file; that admin can then confirm on the freeze notice.';

export function renderFreezeNotice(f: FreezeRecord, policy: Policy): Rendered {
  if (f.unfrozen) {
    const text = `Sends resumed: unfrozen by <@${f.unfrozen.requestedBy}>, confirmed by <@${f.unfrozen.confirmedBy}> at ${utcMinute(f.unfrozen.at)}.`;
    return {
      text,
      blocks: [
        header('▶️ Sends resumed'),
        section(text),
        context(`Was frozen by <@${f.by}> at ${utcMinute(f.at)}: ${outside(f.reason)}`),
      ],
    };
  }
  const asked = f.unfreezeRequest;
  const blocks: KnownBlock[] = [
    header('🛑 Sends are frozen'),
    section(`Frozen by <@${f.by}> at ${utcMinute(f.at)}: ${outside(f.reason)}`),
    section(
      'No withdrawal is sent while frozen, and the wallet service’s verification calls are answered “not verified”. Pending requests can still be approved; approved ones wait and are sent once two admins unfreeze.',
    ),
  ];
  if (asked)
    blocks.push(
      section(`<@${asked.by}> asked to unfreeze at ${utcMinute(asked.at)}. A second, different admin must confirm.`),
    );
  blocks.push(
    actions(`freeze:${f.id}`.slice(0, 255), [
      { text: asked ? 'Confirm unfreeze' : 'Unfreeze', actionId: UNFREEZE_ACTION, value: f.id, style: 'primary' },
    ]),
  );
  if (!secondAdminPossible(policy)) blocks.push(context(SECOND_ADMIN_HOW));
  return { text: `Sends are frozen by <@${f.by}>: ${outside(f.reason)}`, blocks };
}

/** For FreezeService.onChange: the notice posted or edited, and the open cards edited, in the freeze's commit. */
export function freezeNotifier(o: { outbox: Outbox; store: Store; policy: PolicySource }) {
  o.outbox.registerRenderer(FREEZE_NOTICE_RENDERER, (ref) => {
    const f = o.store.get(FREEZES, ref);
    return f ? renderFreezeNotice(f, o.policy.current()) : null;
  });
  return (event: FreezeEvent, tx: Tx): void => {
    const key = freezeNoticeKey(event.freeze.id);
    if (event.type === 'frozen')
      o.outbox.enqueue(tx, {
        op: 'post',
        renderer: FREEZE_NOTICE_RENDERER,
        ref: event.freeze.id,
        key,
        channel: o.policy.current().channels.approvals,
      });
    else o.outbox.enqueue(tx, { op: 'update', renderer: FREEZE_NOTICE_RENDERER, ref: event.freeze.id, key });
    if (event.type === 'unfreeze-requested') return;
    // The cards that say (or must stop saying) "Frozen by": the requests not sent yet.
    for (const r of tx.all(WITHDRAWALS))
      if (r.state === 'pending' || r.state === 'approved')
        o.outbox.enqueue(tx, {
          op: 'update',
          renderer: CARD_RENDERER,
          ref: r.id,
          key: cardKey(r.id),
          priority: 'edit',
        });
  };
}
