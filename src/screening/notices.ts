/**
 * Where screening's notices go (types.ts ScreeningNotice): a direct message to each admin who is a
 * person, or, when the admins are only user groups, one post in the alerts channel that mentions
 * them (never `@here`). Queued through the outbox in the commit of what it tells, so a notice is
 * neither lost nor doubled. The words are in src/slack/screening-notice.ts.
 */
import type { Outbox } from '../outbox/index.js';
import { COLLECTIONS as OUTBOX_COLLECTIONS } from '../outbox/types.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import type { Tx } from '../store/index.js';
import type { ScreeningNotice } from './types.js';

export const SCREENING_NOTICE_RENDERER = 'screening-notice';

export function screeningNoticeSender(
  outbox: Pick<Outbox, 'enqueue'>,
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>,
): (tx: Tx, notice: ScreeningNotice) => void {
  return (tx, notice) => {
    const p = policy.current();
    const people = p.people.admins.filter((a) => /^[UW][A-Z0-9]+$/.test(a));
    const { once, ...told } = notice;
    const ref = JSON.stringify(told);
    // Keyed when it must be told once: a key already used is a notice already queued.
    const key = (to: string) => (once ? { key: `screening:${once}:${to}` } : {});
    const fresh = (to: string) => !once || !tx.get(OUTBOX_COLLECTIONS.messages, `screening:${once}:${to}`);
    for (const user of people)
      if (fresh(user)) outbox.enqueue(tx, { op: 'dm', renderer: SCREENING_NOTICE_RENDERER, ref, user, ...key(user) });
    if (people.length === 0 && fresh(p.channels.alerts))
      outbox.enqueue(tx, {
        op: 'post',
        renderer: SCREENING_NOTICE_RENDERER,
        ref: JSON.stringify({ ...told, mention: p.people.admins }),
        channel: p.channels.alerts,
        ...key(p.channels.alerts),
      });
  };
}
