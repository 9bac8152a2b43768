/**
 * Where a job's failure warning and recovery notice go: a direct message to each admin who is
 * a person, or, when the admins are only user groups, one post in the alerts channel that
 * mentions them. Queued through the outbox in the scheduler's commit, so a notice is neither
 * lost nor doubled. The words are in src/slack/job-messages.ts.
 */
import type { Outbox } from '../outbox/index.js';
import type { RendererName } from '../outbox/renderers.js';
import type { Policy } from '../policy/schema.js';
import type { Tx } from '../store/index.js';
import type { JobNotice } from './types.js';
import type { PolicySource } from '../policy/source.js';

export const JOB_NOTICE_RENDERER = 'job-notice';

/** The notice travels in the entry's ref (it is what happened, not the current state). */
export function encodeNotice(n: JobNotice, mention?: string[]): string {
  return JSON.stringify(mention?.length ? { ...n, mention } : n);
}

/**
 * Tells the admins `told` through `renderer` (its JSON is the entry's ref): a DM to each admin
 * who is a person, else one post in the alerts channel mentioning the admins' groups. Every
 * notice to the admins goes this way (job notices, the embedded store's ceiling).
 */
export function adminsNotifier(
  outbox: Pick<Outbox, 'enqueue'>,
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>,
  renderer: RendererName,
): (tx: Tx, told: object) => void {
  return (tx, told) => {
    const p = policy.current();
    const people = p.people.admins.filter((a) => /^[UW][A-Z0-9]+$/.test(a));
    const ref = JSON.stringify(told);
    for (const user of people) outbox.enqueue(tx, { op: 'dm', renderer, ref, user });
    if (people.length === 0) {
      const post = JSON.stringify(p.people.admins.length ? { ...told, mention: p.people.admins } : told);
      outbox.enqueue(tx, { op: 'post', renderer, ref: post, channel: p.channels.alerts });
    }
  };
}

export function jobNoticeSender(
  outbox: Pick<Outbox, 'enqueue'>,
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>,
): (tx: Tx, notice: JobNotice) => void {
  return adminsNotifier(outbox, policy, JOB_NOTICE_RENDERER);
}
