/**
 * Where screening's notices go (types.ts ScreeningNotice): a direct message to each admin who is a
 * person, or, when the admins are only user groups, one post in the alerts channel that mentions
 * them (never `@here`). Queued through the outbox in the commit of what it tells, so a notice is
 * neither lost nor doubled. The words are in src/slack/screening-notice.ts.
 */
import type { Outbox } from '../outbox/index.js';
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
    const ref = JSON.stringify(notice);
    for (const user of people) outbox.enqueue(tx, { op: 'dm', renderer: SCREENING_NOTICE_RENDERER, ref, user });
    if (people.length === 0)
      outbox.enqueue(tx, {
        op: 'post',
        renderer: SCREENING_NOTICE_RENDERER,
        ref: JSON.stringify({ ...notice, mention: p.people.admins }),
        channel: p.channels.alerts,
      });
  };
}
