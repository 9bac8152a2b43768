/**
 * Where a job's failure warning and recovery notice go: a direct message to each admin who is
 * a person, or, when the admins are only user groups, one post in the alerts channel that
 * mentions them. Queued through the outbox in the scheduler's commit, so a notice is neither
 * lost nor doubled. The words are in src/slack/job-messages.ts.
 */
import type { Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Tx } from '../store/index.js';
import type { JobNotice } from './types.js';
import type { PolicySource } from '../policy/source.js';

export const JOB_NOTICE_RENDERER = 'job-notice';

/** The notice travels in the entry's ref (it is what happened, not the current state). */
export function encodeNotice(n: JobNotice, mention?: string[]): string {
  return JSON.stringify(mention?.length ? { ...n, mention } : n);
}

export function jobNoticeSender(
  outbox: Pick<Outbox, 'enqueue'>,
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>,
): (tx: Tx, notice: JobNotice) => void {
  return (tx, notice) => {
    const p = policy.current();
    const ref = encodeNotice(notice);
    const people = p.people.admins.filter((a) => /^[UW][A-Z0-9]+$/.test(a));
    for (const user of people) outbox.enqueue(tx, { op: 'dm', renderer: JOB_NOTICE_RENDERER, ref, user });
    if (people.length === 0) {
      const post = encodeNotice(notice, p.people.admins);
      outbox.enqueue(tx, { op: 'post', renderer: JOB_NOTICE_RENDERER, ref: post, channel: p.channels.alerts });
    }
  };
}
