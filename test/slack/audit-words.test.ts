/** The audit's words for the gates' decisions, shared by /treasury audit and /treasury withdrawal's story. */
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, LEGACY_AUDIT_ACTIONS } from '../../src/audit/actions.js';
import { auditRowText, auditWhat } from '../../src/slack/audit-words.js';

describe('auditWhat', () => {
  it('has words, not the raw action name, for the gates, the policy re-check and step-up', () => {
    const actions = [
      'verification',
      'send_held',
      'policy_recheck_waits',
      'policy_recheck_refused',
      'policy_recheck_approved',
      'stepup_enrol_start',
      'stepup_enrolled',
      'stepup_enrol_abandoned',
      'stepup_verified',
      'stepup_wrong_code',
      'stepup_refused_locked',
      'stepup_locked',
      'stepup_unreadable',
    ];
    for (const action of actions) {
      const words = auditWhat({ action, details: {} });
      expect(words, action).toBeTruthy();
      expect(words, action).not.toContain(action);
    }
    expect(auditWhat({ action: 'stepup_wrong_code', details: { why: 'replayed' } })).toContain('already used');
    expect(auditWhat({ action: 'no_such_action', details: {} })).toBeUndefined();
  });
});

describe('auditWhat for the repeat hold', () => {
  it('a possible double payment does not say "reported sent" (any report, even Failed, is one)', () => {
    const words = auditWhat({ action: 'double_payment_risk', details: {} })!;
    expect(words).not.toContain('reported sent');
    expect(words).toContain('after it had no record of it');
  });
});

describe('every audit action has words', () => {
  it('each action the app writes, and each an earlier version wrote, reads in words, not its raw name', () => {
    for (const action of [...AUDIT_ACTIONS, ...LEGACY_AUDIT_ACTIONS]) {
      const words = auditWhat({ action, details: {} });
      expect(words, action).toBeTruthy();
      // No action name (snake_case) shows through.
      expect(words, action).not.toMatch(/[a-z]_[a-z]/);
    }
  });

  it('an admin resetting someone’s authenticator codes shows as words in the audit row', () => {
    const row = auditRowText(
      { actor: 'UADMIN1', action: 'stepup_reset', subject: 'UAPPROVER2', details: { was: 'active' } },
      () => undefined,
    );
    expect(row).toContain('reset someone’s authenticator codes');
    expect(row).not.toContain('stepup_reset');
  });
});
