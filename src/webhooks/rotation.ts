/**
 * `/treasury webhook rotate`: a leaked webhook URL is replaced. A new secret is committed with
 * the old one kept for the overlap, an audit entry and the admins' notice (one commit), then the
 * new URL is registered with the wallet service. The old URL (and its verification URL) answers
 * until the overlap ends, then 404 like any wrong secret.
 *
 * If the registration fails, the overlap still ends on time: a leaked URL must not stay open
 * because the service was down. Deposits are not lost meanwhile (the reconciliation reads the
 * transaction list); the admin is told to retry `/treasury webhook register`.
 *
 * A rotation runs in the same one-at-a-time queue as every registration (wiring.ts): a slow
 * registration of the old URL can never finish after the new one and leave the service with it.
 *
 * With WEBHOOK_SECRET configured nothing is rotated here: the answer says how to rotate it in
 * the environment. No secret is ever part of a result, a log line or the notice.
 */
import { appendAudit } from '../audit/log.js';
import type { Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Tx } from '../store/index.js';
import type { WebhookRegistration } from './registration.js';
import { secretDigest, type WebhookSecrets } from './secrets.js';
import type { PolicySource } from '../policy/source.js';

export const WEBHOOK_ROTATED_RENDERER = 'webhook-rotated';

/** What the admins' notice says (it travels in the outbox entry's ref: what happened, not a state). */
export interface RotationNotice {
  by: string;
  at: number;
  until: number;
  /** Set when the admins are only user groups: the post in the alerts channel mentions them. */
  mention?: string[];
}

export type WebhookRotation =
  | { kind: 'configured' }
  | { kind: 'rotated'; at: number; until: number; registration: WebhookRegistration };

export interface WebhookRotationPart {
  /** `configured`: WEBHOOK_SECRET is set, so rotation happens in the environment. */
  readonly source: WebhookSecrets['source'];
  rotate(by: string): Promise<WebhookRotation>;
  /** When the previous secret stops being accepted; undefined when there is no overlap now. */
  overlapUntil(): number | undefined;
  /** False when `r` registered a secret that is no longer the current one (true for older records, which do not say). */
  isCurrent(r: WebhookRegistration): boolean;
}

/** Runs tasks one at a time, in the order they were given (a failed task does not stop the next). */
export type Serial = <T>(task: () => Promise<T>) => Promise<T>;

export function serial(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** The admins hear of it as of a failing job: a DM each (people), else one post in the alerts channel mentioning the groups. */
function tellAdmins(
  tx: Tx,
  outbox: Pick<Outbox, 'enqueue'>,
  policy: Pick<Policy, 'people' | 'channels'>,
  n: RotationNotice,
) {
  const people = policy.people.admins.filter((a) => /^[UW][A-Z0-9]+$/.test(a));
  const ref = JSON.stringify(n);
  for (const user of people) outbox.enqueue(tx, { op: 'dm', renderer: WEBHOOK_ROTATED_RENDERER, ref, user });
  if (people.length === 0) {
    outbox.enqueue(tx, {
      op: 'post',
      renderer: WEBHOOK_ROTATED_RENDERER,
      ref: JSON.stringify({ ...n, mention: policy.people.admins }),
      channel: policy.channels.alerts,
    });
  }
}

export function webhookRotation(o: {
  secrets: WebhookSecrets;
  outbox: Pick<Outbox, 'enqueue'>;
  policy: PolicySource<Pick<Policy, 'people' | 'channels'>>;
  /** Registers the URL of the current secret with the wallet service, already inside `queue`. */
  register: (by: string) => Promise<WebhookRegistration>;
  /** The queue every registration goes through: two registrations racing could leave the service
   * with the secret that was replaced (refused once its overlap ends). */
  queue: Serial;
}): WebhookRotationPart {
  const rotateNow = async (by: string): Promise<WebhookRotation> => {
    if (o.secrets.source === 'configured') return { kind: 'configured' };
    const { at, until } = await o.secrets.rotate((tx, r) => {
      appendAudit(tx, {
        at: r.at,
        actor: by,
        action: 'webhook_rotate',
        subject: 'webhook',
        details: {
          why: 'webhook secret rotated: a new URL for the wallet service; the old one is refused once the overlap ends',
          oldAcceptedUntil: new Date(r.until).toISOString(),
        },
      });
      tellAdmins(tx, o.outbox, o.policy.current(), { by, at: r.at, until: r.until });
    });
    const registration = await o.register(by);
    return { kind: 'rotated', at, until, registration };
  };
  return {
    source: o.secrets.source,
    overlapUntil: () => o.secrets.overlapUntil(),
    isCurrent: (r) => r.secretDigest === undefined || r.secretDigest === secretDigest(o.secrets.current()),
    rotate: (by) => o.queue(() => rotateNow(by)),
  };
}
