/**
 * Every action the app writes to the audit log, by the part that writes it. `appendAudit` takes
 * only these, and the Slack side has words for each (src/slack/audit-words.ts, a record keyed by
 * this union): a new action does not compile until it is given words. The group titles are the
 * headings of docs/reference/audit-actions.md.
 */
export const AUDIT_ACTION_GROUPS = {
  "Withdrawals (src/withdrawals): the request's life": [
    'request',
    'refuse',
    'approve',
    'reject',
    'send',
    'result',
    'expire',
    'remind',
    'unknown',
    'reconcile',
    'resolve',
  ],
  'What the wallet service, or a notification, says of a request (src/withdrawals/notice.ts)': [
    'webhook',
    'webhook_checked',
    'service_status',
    'service_contradiction',
    'notice_contradiction',
    'service_mismatch',
  ],
  "Alerts of every kind checked against the wallet's history (src/alerts/claims.ts)": [
    'alert.contradicted',
    'alert.not_in_history',
  ],
  'The rule table judged again at an approval, the send or a policy change (src/withdrawals/rule-table.ts)': [
    'policy_recheck_waits',
    'policy_recheck_refused',
    'policy_recheck_approved',
  ],
  'Holds: a freeze, a limit crossed at the send, a repeat of a payout (src/withdrawals/hold)': [
    'send_held',
    'hold',
    'send_held_repeat',
    'hold_release',
    'double_payment_risk',
  ],
  'Governed policy (src/policy/governance)': [
    'policy_accept_first',
    'policy_propose',
    'policy_approve',
    'policy_approve_refused',
    'policy_reject_refused',
    'policy_reject',
    'policy_apply',
    'policy_supersede',
    'policy_invalid',
  ],
  'The gates (src/verification, src/freeze)': [
    'verification',
    'freeze',
    'freeze_refused',
    'unfreeze_request',
    'unfreeze_refused',
    'unfreeze',
  ],
  'Step-up (src/stepup)': [
    'stepup_enrol_start',
    'stepup_enrolled',
    'stepup_enrol_abandoned',
    'stepup_verified',
    'stepup_wrong_code',
    'stepup_refused_locked',
    'stepup_locked',
    'stepup_unreadable',
    'stepup_reset',
    'stepup_rekeyed',
  ],
  'Passkeys (src/passkeys)': [
    'passkey_link_sent',
    'passkey_enrolled',
    'passkey_enrol_refused',
    'passkey_removed',
    'passkey_revoked',
    'passkey_confirm_started',
    'passkey_confirmed',
    'passkey_refused',
  ],
  'The webhook secret (src/webhooks/rotation.ts)': ['webhook_rotate'],
  'Away and escalation (src/away, src/withdrawals/escalation.ts)': [
    'away_set',
    'away_back',
    'escalate_dm',
    'escalate_post',
  ],
  'Sanctions screening (src/screening)': [
    'sanctions_stop',
    'sanctions_deposit',
    'screening_list_refreshed',
    'screening_list_refresh_failed',
  ],
  'Batch payouts (src/batches): the file, its one approval, a stop': [
    'batch_request',
    'batch_approve',
    'batch_reject',
    'batch_expire',
    'batch_stop',
  ],
  "The embedded store's size (src/jobs/store-ceiling.ts)": ['store_ceiling_warning'],
} as const;

export const AUDIT_ACTIONS = Object.values(AUDIT_ACTION_GROUPS).flat();

export type AuditAction = (typeof AUDIT_ACTION_GROUPS)[keyof typeof AUDIT_ACTION_GROUPS][number];

/** Actions earlier versions wrote and no longer do: still in stored logs, so still given words. */
export const LEGACY_AUDIT_ACTIONS = ['webhook_contradiction'] as const;

export type LegacyAuditAction = (typeof LEGACY_AUDIT_ACTIONS)[number];

/** Any action a stored entry may hold. */
export type StoredAuditAction = AuditAction | LegacyAuditAction;

const KNOWN = new Set<string>([...AUDIT_ACTIONS, ...LEGACY_AUDIT_ACTIONS]);

/** Whether a stored entry's action is one the app knows (an entry's action is read back as text). */
export const isStoredAuditAction = (action: string): action is StoredAuditAction => KNOWN.has(action);
