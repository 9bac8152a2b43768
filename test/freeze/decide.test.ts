/** The freeze switch's rules: one admin freezes, two distinct admins unfreeze. */
import { describe, expect, it } from 'vitest';
import { decideFreeze } from '../../src/freeze/decide.js';
import type { FreezeRecord } from '../../src/freeze/state.js';
import { parsePolicy } from '../../src/policy/load.js';
import { renderFreezeNotice } from '../../src/slack/freeze-notice.js';
import { freezeRefusalText } from '../../src/slack/freeze-words.js';

const NOW = Date.parse('2026-11-23T04:00:00Z');
const frozen: FreezeRecord = { id: 'f1', by: 'U0ERIN', reason: 'key leaked', at: '2026-11-23T03:00:00.000Z' };

describe('decideFreeze', () => {
  it('an admin freezes with a reason; the audit entry says who and why', () => {
    const d = decideFreeze(
      { type: 'freeze', user: 'U0ERIN', isAdmin: true, reason: '  key   leaked ', id: 'f1' },
      undefined,
      NOW,
    );
    expect(d).toMatchObject({
      kind: 'changed',
      event: 'frozen',
      next: { id: 'f1', by: 'U0ERIN', reason: 'key leaked' },
      audit: { actor: 'U0ERIN', action: 'freeze', details: { reason: 'key leaked' } },
    });
  });

  it('refuses a non-admin (audited), a missing reason (with the usage), and a second freeze', () => {
    const na = decideFreeze({ type: 'freeze', user: 'U0BOB', isAdmin: false, reason: 'x', id: 'f2' }, undefined, NOW);
    expect(na).toMatchObject({ kind: 'refused', reason: 'not_admin', audit: { action: 'freeze_refused' } });
    const nr = decideFreeze({ type: 'freeze', user: 'U0ERIN', isAdmin: true, reason: '   ', id: 'f2' }, undefined, NOW);
    expect(nr).toMatchObject({ kind: 'refused', reason: 'reason_required' });
    expect(nr.kind === 'refused' && nr.message).toContain('/treasury freeze <reason>');
    const again = decideFreeze({ type: 'freeze', user: 'U0ERIN', isAdmin: true, reason: 'y', id: 'f2' }, frozen, NOW);
    expect(again).toMatchObject({ kind: 'refused', reason: 'already_frozen' });
  });

  it('unfreezing: one admin asks, the same admin cannot confirm, a different admin confirms on the notice', () => {
    const ask = decideFreeze({ type: 'unfreeze', user: 'U0ERIN', isAdmin: true, confirm: false }, frozen, NOW);
    expect(ask).toMatchObject({ kind: 'changed', event: 'unfreeze-requested', audit: { action: 'unfreeze_request' } });
    const asked = ask.kind === 'changed' ? ask.next : frozen;
    const same = decideFreeze(
      { type: 'unfreeze', user: 'U0ERIN', isAdmin: true, confirm: true, freezeId: 'f1' },
      asked,
      NOW,
    );
    expect(same).toMatchObject({ kind: 'refused', reason: 'already_asked', audit: { action: 'unfreeze_refused' } });
    const byCommand = decideFreeze({ type: 'unfreeze', user: 'U0FRANK', isAdmin: true, confirm: false }, asked, NOW);
    expect(byCommand).toMatchObject({ kind: 'refused', reason: 'confirm_on_notice' });
    const stale = decideFreeze(
      { type: 'unfreeze', user: 'U0FRANK', isAdmin: true, confirm: true, freezeId: 'old' },
      asked,
      NOW,
    );
    expect(stale).toMatchObject({ kind: 'refused', reason: 'stale_notice' });
    const ok = decideFreeze(
      { type: 'unfreeze', user: 'U0FRANK', isAdmin: true, confirm: true, freezeId: 'f1' },
      asked,
      NOW,
    );
    expect(ok).toMatchObject({
      kind: 'changed',
      event: 'unfrozen',
      next: { unfrozen: { requestedBy: 'U0ERIN', confirmedBy: 'U0FRANK' } },
      audit: { action: 'unfreeze', details: { requestedBy: 'U0ERIN', confirmedBy: 'U0FRANK' } },
    });
  });

  it('refuses unfreezing by a non-admin, and when nothing is frozen', () => {
    expect(decideFreeze({ type: 'unfreeze', user: 'U0BOB', isAdmin: false, confirm: true }, frozen, NOW)).toMatchObject(
      {
        kind: 'refused',
        reason: 'not_admin',
      },
    );
    expect(
      decideFreeze({ type: 'unfreeze', user: 'U0ERIN', isAdmin: true, confirm: false }, undefined, NOW),
    ).toMatchObject({
      kind: 'refused',
      reason: 'not_frozen',
    });
  });
});

describe('the freeze reason in Slack text', () => {
  const sneaky: FreezeRecord = { ...frozen, reason: '<!channel> pay <https://x.example|here> & now' };
  const escaped = '&lt;!channel&gt; pay &lt;https://x.example|here&gt; &amp; now';

  it('the already-frozen reply escapes it (no mention, no link)', () => {
    const again = decideFreeze({ type: 'freeze', user: 'U0ERIN', isAdmin: true, reason: 'y', id: 'f2' }, sneaky, NOW);
    // The decider says what the refusal is about; the Slack side writes it (src/slack/freeze-words.ts).
    expect(again.kind === 'refused' && again.frozen).toMatchObject({ by: sneaky.by, reason: sneaky.reason });
    const message = again.kind === 'refused' ? freezeRefusalText(again) : '';
    expect(message).toContain(escaped);
    expect(message).not.toContain('<!channel>');
    expect(message).toContain('<@U0ERIN>');
  });

  it("the notice's fallback text escapes it as its blocks do", () => {
    const policy = parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people: { requesters: [U0ALICE], approvers: [U0CAROL], admins: [U0ERIN, U0FRANK] }
withdrawals:
  tiers:
    default:
      - { approvals: 1 }
`);
    const notice = renderFreezeNotice(sneaky, policy);
    expect(notice.text).toBe(`Sends are frozen by <@U0ERIN>: ${escaped}`);
    expect(JSON.stringify(notice.blocks)).not.toContain('<!channel>');
  });
});
