/**
 * The freeze switch's rules as one pure function: any one admin freezes (with a reason);
 * unfreezing takes two distinct admins: one asks, a different one confirms on the freeze
 * notice. No store, no clock: the shell (service.ts) passes the facts in.
 */
import type { AuditAction } from '../audit/actions.js';
import type { FreezeRecord } from './state.js';

export type FreezeCommand =
  | { type: 'freeze'; user: string; isAdmin: boolean; reason: string; id: string }
  /** `confirm`: from the freeze notice's button, which may confirm another admin's request; the command only asks. */
  | { type: 'unfreeze'; user: string; isAdmin: boolean; confirm: boolean; freezeId?: string };

export type FreezeRefusal =
  | 'not_admin'
  | 'reason_required'
  | 'already_frozen'
  | 'not_frozen'
  | 'already_asked'
  | 'confirm_on_notice'
  | 'stale_notice';

/**
 * What a refusal is about, for the Slack side to say with mentions (src/slack/freeze-words.ts):
 * the freeze in force, or the admin who already asked to unfreeze. `message` is the same in plain
 * words, without mrkdwn (the domain writes none).
 */
export interface FreezeRefusalFacts {
  frozen?: { by: string; at: string; reason: string };
  askedBy?: string;
}

export type FreezeDecision =
  | ({ kind: 'refused'; reason: FreezeRefusal; message: string; audit?: FreezeAudit } & FreezeRefusalFacts)
  | {
      kind: 'changed';
      next: FreezeRecord;
      event: 'frozen' | 'unfreeze-requested' | 'unfrozen';
      audit: FreezeAudit;
    };

export interface FreezeAudit {
  at: string;
  actor: string;
  action: AuditAction;
  subject: string;
  details: Record<string, unknown>;
}

export const FREEZE_USAGE =
  'Usage: `/treasury freeze <reason>`, e.g. `/treasury freeze API key may have leaked`. The reason is shown on every card and in the audit log.';

const MAX_REASON = 500;

export function decideFreeze(c: FreezeCommand, current: FreezeRecord | undefined, now: number): FreezeDecision {
  const at = new Date(now).toISOString();
  if (c.type === 'freeze') {
    if (!c.isAdmin)
      return refused('not_admin', 'Only treasury admins can freeze sends.', {
        at,
        actor: c.user,
        action: 'freeze_refused',
        subject: 'freeze',
        details: { reason: 'not an admin' },
      });
    const reason = c.reason.replace(/\s+/g, ' ').trim();
    if (!reason) return refused('reason_required', `A freeze needs a reason. ${FREEZE_USAGE}`);
    if (reason.length > MAX_REASON)
      return refused('reason_required', `The reason is too long (${reason.length} characters; at most ${MAX_REASON}).`);
    if (current)
      return {
        ...refused('already_frozen', 'Sends are already frozen.'),
        frozen: { by: current.by, at: current.at, reason: current.reason },
      };
    return {
      kind: 'changed',
      next: { id: c.id, by: c.user, reason, at },
      event: 'frozen',
      audit: { at, actor: c.user, action: 'freeze', subject: c.id, details: { reason } },
    };
  }
  const audit = (why: string): FreezeAudit => ({
    at,
    actor: c.user,
    action: 'unfreeze_refused',
    subject: current?.id ?? 'freeze',
    details: { reason: why },
  });
  if (!c.isAdmin) return refused('not_admin', 'Only treasury admins can unfreeze sends.', audit('not an admin'));
  if (!current) return refused('not_frozen', 'Sends are not frozen.');
  if (c.freezeId !== undefined && c.freezeId !== current.id)
    return refused('stale_notice', 'That freeze is over; the freeze in force has its own notice.');
  const asked = current.unfreezeRequest;
  if (!asked) {
    return {
      kind: 'changed',
      next: { ...current, unfreezeRequest: { by: c.user, at } },
      event: 'unfreeze-requested',
      audit: { at, actor: c.user, action: 'unfreeze_request', subject: current.id, details: { frozenBy: current.by } },
    };
  }
  if (asked.by === c.user)
    return refused(
      'already_asked',
      'You already asked to unfreeze. A second, different admin must confirm it on the freeze notice.',
      audit('the same admin asked again; a second admin must confirm'),
    );
  if (!c.confirm)
    return {
      ...refused(
        'confirm_on_notice',
        'Another admin already asked to unfreeze. To confirm, use Confirm unfreeze on the freeze notice.',
      ),
      askedBy: asked.by,
    };
  return {
    kind: 'changed',
    next: { ...current, unfrozen: { requestedBy: asked.by, confirmedBy: c.user, at } },
    event: 'unfrozen',
    audit: {
      at,
      actor: c.user,
      action: 'unfreeze',
      subject: current.id,
      details: { requestedBy: asked.by, confirmedBy: c.user, frozenBy: current.by, reason: current.reason },
    },
  };
}

type Refused = Extract<FreezeDecision, { kind: 'refused' }>;

function refused(reason: FreezeRefusal, message: string, audit?: FreezeAudit): Refused {
  return { kind: 'refused', reason, message, ...(audit ? { audit } : {}) };
}
