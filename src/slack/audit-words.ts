/**
 * What an audit entry records, in words: the rows of `/treasury audit` and the story of
 * `/treasury withdrawal`, for every domain's actions.
 */
import { isStoredAuditAction, type StoredAuditAction } from '../audit/actions.js';
import { outside, outsideCode } from '../format/outside.js';
import type { ConfirmRefusal } from '../passkeys/index.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';
import { formatAmount } from '../withdrawals/index.js';
import { shorten } from './blocks.js';
import { shortRef, transferWord } from './withdrawal/words.js';

/** An audit entry as `/treasury audit` shows it; only the fields a row needs. */
export interface AuditRowInput {
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * One audit row that reads on its own: who, what happened in the card's words, the amount,
 * the payee, the short reference and the reason. Entries written before their details
 * carried the amount and payee are completed from the stored request.
 */
export function auditRowText(e: AuditRowInput, get: (id: string) => WithdrawalRequest | undefined): string {
  const d = e.details;
  const r = get(e.subject);
  const amount = str(d.amount) ?? r?.amount;
  const currency = str(d.currency) ?? r?.currency;
  const destination = str(d.destination) ?? r?.destination;
  const network = str(d.network) ?? r?.network;
  const reference = str(d.merchantReference) ?? r?.merchantReference;
  const delivered = str(d.delivered);
  const parts = [
    auditWhat(e) ?? e.action,
    amount && currency
      ? `${outside(formatAmount(amount, currency))}${network ? ` on ${outside(network, 30)}` : ''}${destination ? ` to ${outsideCode(shorten(destination))}` : ''}`
      : outsideCode(shorten(e.subject, 8, 4)),
    delivered && currency && amount !== delivered ? `delivered ${outside(formatAmount(delivered, currency))}` : '',
    str(d.fee) ? `fee ${outside(formatAmount(str(d.fee)!, str(d.feeCurrency) ?? currency))}` : '',
    reference ? `ref ${outsideCode(shortRef({ merchantReference: reference }))}` : '',
    // A verification's reason is a code; its words are in `why` (a step-up's `why` is a code: its words are above).
    str(d.why ?? d.reason) && !/^(stepup|passkey)_/.test(e.action) ? `“${outside(str(d.why ?? d.reason), 200)}”` : '',
    str(d.note) && e.action !== 'request' ? `“${outside(str(d.note), 200)}”` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/** What an entry's words read from its details. */
interface Facts {
  d: Record<string, unknown>;
  outcome: string | undefined;
  status: string | undefined;
}

/**
 * The words of every action the app writes (and of those earlier versions wrote): keyed by the
 * union, so an action without words does not compile.
 */
/** A passkey refusal's reason (a code in the entry), in words. */
const PASSKEY_WHY: Readonly<Record<ConfirmRefusal, string>> = {
  unknown_link: 'unknown link',
  malformed: 'unreadable answer',
  replayed: 'already used',
  expired: 'expired',
  other_request: 'signed for another withdrawal',
  wrong_origin: 'answered through another page',
  unknown_credential: 'unknown passkey',
  other_user: 'someone else’s passkey',
  too_new: 'passkey set up too recently',
  changed: 'the withdrawal or policy changed',
  no_user_verification: 'no PIN or biometric check',
  counter: 'counter went backwards (a copied key?)',
  bad_signature: 'signature did not verify',
};
const passkeyWhy = (why: unknown): string =>
  typeof why === 'string' && Object.hasOwn(PASSKEY_WHY, why) ? `: ${PASSKEY_WHY[why as ConfirmRefusal]}` : '';

const WORDS: Record<StoredAuditAction, (f: Facts) => string> = {
  request: () => 'requested',
  refuse: () => '🚫 not requested',
  approve: ({ d }) =>
    (typeof d.approvals === 'number' && typeof d.required === 'number'
      ? `approved (${d.approvals} of ${d.required})`
      : 'approved') +
    (Array.isArray(d.for) && d.for.length ? ` for ${d.for.map((u) => `<@${String(u)}>`).join(', ')}` : ''),
  reject: () => '⛔ rejected',
  send: () => '🔄 sending',
  result: ({ d, outcome }) =>
    d.ignored
      ? 'late answer from the wallet service (already settled)'
      : outcome === 'completed'
        ? '✅ sent'
        : outcome === 'failed'
          ? '❌ failed'
          : 'result',
  expire: () => '⌛ expired',
  remind: () => 'approvers reminded',
  unknown: () => '⚠️ outcome unknown',
  reconcile: ({ d, outcome }) =>
    outcome === 'never_executed'
      ? '❌ not sent (the wallet service has no record of it)'
      : d.via === 'status'
        ? outcome === 'completed'
          ? '✅ sent (confirmed by the wallet service)'
          : '❌ failed (reported by the wallet service)'
        : outcome === 'completed'
          ? '✅ sent (found in the transaction list)'
          : '❌ failed (found in the transaction list)',
  resolve: ({ outcome }) => (outcome === 'sent' ? '✅ resolved as sent' : '❌ resolved as not sent'),
  webhook: ({ d, status }) =>
    d.claim
      ? `a notification says ${transferWord(status ?? '')} (not confirmed yet: the wallet service is asked)`
      : `transfer ${transferWord(status ?? 'update')}`,
  webhook_contradiction: ({ status }) =>
    `🚨 the wallet service reports it ${transferWord(status ?? '')}, contradicting the card`,
  webhook_checked: ({ d, status }) =>
    `a notification (${transferWord(status ?? '')}) checked with the wallet service (${transferWord(str(d.service) ?? '')}): it agrees`,
  service_status: ({ status }) => `the wallet service reports it ${transferWord(status ?? '')}`,
  service_contradiction: ({ status }) =>
    `🚨 the wallet service reports it ${transferWord(status ?? '')}, contradicting the card`,
  notice_contradiction: ({ d, status }) =>
    `🚨 a notification disagreed with the wallet service: it may be forged (it said ${transferWord(status ?? '')}, the service says ${transferWord(str(d.service) ?? '')})`,
  service_mismatch: ({ d }) =>
    `🚨 the wallet service's answer does not match this request (${Array.isArray(d.mismatches) ? d.mismatches.map((m) => outside(m, 160)).join('; ') : 'details differ'}): nothing was settled on it`,
  'alert.contradicted': ({ d }) =>
    `🚨 a notification disagreed with the wallet's history: it may be forged (${outside(d.kind, 20)}${typeof d.hash === 'string' ? ` ${outsideCode(d.hash, 80)}` : ''})`,
  'alert.not_in_history': ({ d }) =>
    `⚠️ a notification not in the wallet's history after the grace: it may be forged (${outside(d.kind, 20)}${typeof d.hash === 'string' ? ` ${outsideCode(d.hash, 80)}` : ''})`,
  // Governed policy (src/policy/governance) and its re-check of requests.
  policy_accept_first: () => 'treasury policy accepted (the first one loaded)',
  policy_propose: () => 'policy change proposed',
  policy_approve: ({ d }) =>
    typeof d.approvals === 'number' && typeof d.required === 'number'
      ? `policy change approved (${d.approvals} of ${d.required})`
      : 'policy change approved',
  policy_approve_refused: () => 'policy change approval refused (not an admin)',
  policy_reject_refused: () => 'policy change rejection refused (not an admin)',
  policy_reject: () => '⛔ policy change rejected',
  policy_apply: () => '✅ policy change applied',
  policy_supersede: () => 'policy change replaced (the file changed again)',
  policy_invalid: () => '⚠️ policy file unusable, nothing changed',
  policy_recheck_waits: () => '🔁 back to waiting: the policy in force asks for more',
  policy_recheck_refused: () => '⛔ refused by the policy in force',
  policy_recheck_approved: () => 'approved under the policy in force',
  // Sanctions screening (src/screening).
  sanctions_stop: ({ d }) =>
    `🛑 stopped at the ${str(d.step) === 'verify' ? 'verification' : (str(d.step) ?? 'send')}: the destination is sanctioned`,
  sanctions_deposit: () => '🛑 a deposit came from a sanctioned address',
  screening_list_refreshed: ({ d }) =>
    `sanctions list refreshed (${typeof d.count === 'number' ? d.count : '?'} addresses, ${typeof d.added === 'number' ? d.added : 0} added, ${typeof d.removed === 'number' ? d.removed : 0} removed)`,
  screening_list_refresh_failed: () => '⚠️ the sanctions list could not be refreshed',
  // The gates (src/verification, src/freeze).
  verification: ({ d }) =>
    d.verdict === 'verified'
      ? '🔐 the wallet service asked to verify it: confirmed'
      : '🚨 the wallet service asked to verify it: refused',
  send_held: () => '⏸️ held, not sent: sends are frozen',
  // A repeat of a "never executed" request whose original was reported after all (src/withdrawals/hold/).
  hold: ({ d }) =>
    d.precaution
      ? '⏸️ on hold as a precaution: a notification (not confirmed by the wallet service) names the earlier request of the same payout'
      : '⏸️ on hold: the wallet service now reports the earlier request of the same payout',
  send_held_repeat: () => '⏸️ not sent: on hold (the wallet service now reports the earlier request of the same payout)',
  hold_release: () => '▶️ hold released (send anyway)',
  double_payment_risk: () =>
    '🚨 both may have been paid (the wallet service reported the earlier request of the same payout after it had no record of it)',
  freeze: () => '🛑 froze all sends',
  freeze_refused: () => 'freeze refused',
  unfreeze_request: () => 'asked to unfreeze (a second admin must confirm)',
  unfreeze_refused: () => 'unfreeze refused',
  unfreeze: () => '▶️ confirmed the unfreeze: sends resumed',
  // Step-up (src/stepup): an authenticator code asked before approving a large request.
  stepup_enrol_start: () => 'started setting up authenticator codes',
  stepup_enrolled: () => '🔐 set up authenticator codes',
  stepup_enrol_abandoned: () => 'authenticator set-up abandoned',
  stepup_verified: () => '🔐 authenticator code confirmed',
  stepup_wrong_code: ({ d }) =>
    d.why === 'replayed' ? '🚫 authenticator code refused (already used)' : '🚫 authenticator code refused',
  stepup_refused_locked: () => '🔒 authenticator code refused: codes are locked after repeated wrong ones',
  stepup_locked: () => '🔒 authenticator codes locked after repeated wrong ones',
  stepup_unreadable: () => '⚠️ authenticator set-up unreadable (the app’s key changed): set it up again',
  stepup_reset: () => '🔐 reset someone’s authenticator codes (they must set them up again)',
  stepup_rekeyed: () => 'authenticator set-ups sealed again under the app’s new key',
  // Passkeys (src/passkeys).
  passkey_link_sent: () => 'asked for a passkey set-up link',
  passkey_enrolled: () => '🔐 set up a passkey',
  passkey_enrol_refused: () => '🚫 passkey set-up refused (not verified for this app)',
  passkey_removed: () => 'removed one of their passkeys',
  passkey_revoked: () => '🔐 revoked someone’s passkeys (they must set them up again)',
  passkey_confirm_started: () => 'opened a passkey confirmation',
  passkey_confirmed: () => '🔐 approval confirmed with a passkey',
  passkey_refused: ({ d }) => `🚫 passkey confirmation refused${passkeyWhy(d.why)}`,
  // The webhook secret (src/webhooks/rotation.ts).
  webhook_rotate: () => '🔑 rotated the webhook secret',
  // Away and escalation (src/away, src/withdrawals/escalation.ts).
  away_set: ({ d }) =>
    `🏝️ away until ${(str(d.until) ?? '').slice(0, 16).replace('T', ' ')} UTC${str(d.delegate) ? `, approvals handed to <@${str(d.delegate)}>` : ''}`,
  away_back: () => '👋 back: no longer away',
  escalate_dm: () => '⏰ the approvers still needed were reminded (escalation)',
  escalate_post: () => '📣 escalated: still short of approvals',
  // Batch payouts (src/batches).
  batch_request: ({ d }) => `📄 requested a batch payout of ${typeof d.rows === 'number' ? d.rows : 'several'} rows`,
  batch_approve: ({ d }) => (d.complete ? '✅ approved a batch payout (fully approved)' : '👍 approved a batch payout'),
  batch_reject: () => '❌ rejected a batch payout',
  batch_expire: () => '⌛ a batch payout expired before its approvals; nothing was sent',
  batch_stop: () => '⏹️ stopped the rest of a batch payout',
  // The embedded store's size (src/jobs/store-ceiling.ts).
  store_ceiling_warning: ({ d }) =>
    `📦 admins told to move to PostgreSQL: ${typeof d.records === 'number' ? d.records.toLocaleString('en-US') : 'many'} records, past 80% of what the built-in storage holds well`,
};

/**
 * What an audit entry records, in the card's words ("⏸️ held, not sent: sends are frozen"): the
 * one vocabulary of `/treasury audit` and `/treasury withdrawal`'s story. Undefined only for an
 * action the app never wrote.
 */
export function auditWhat(e: Pick<AuditRowInput, 'action' | 'details'>): string | undefined {
  if (!isStoredAuditAction(e.action)) return undefined;
  const d = e.details;
  return WORDS[e.action]({ d, outcome: str(d.outcome), status: str(d.status) });
}
