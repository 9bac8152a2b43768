import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/index.js';
import {
  renderAlert,
  renderAlertBatch,
  renderHistoryLine,
  renderStatusChange,
  renderUnknownWindow,
} from '../../src/slack/alert-messages.js';

function alert(kind: Alert['kind'], status: string): Alert {
  return {
    id: `al_${kind}`,
    kind,
    status,
    amount: '12.5',
    currency: 'USDT',
    network: 'TRON',
    channel: 'C0ALERTS',
    mention: false,
    source: 'webhook',
    verification: { state: 'unverified', attempts: 0 },
    history: [{ status, at: 0, source: 'webhook', applied: true, eventId: 'ev_1' }],
    messageKey: `alert:al_${kind}`,
    createdAt: 0,
    updatedAt: 0,
  };
}

const warning = (a: Alert) =>
  (renderAlert(a).blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((b) => b.type === 'section' && b.text?.text.startsWith(':warning:'))
    .map((b) => b.text!.text);

describe('alert messages: the failure warning fits the direction of the money', () => {
  it('a deposit: nothing was credited', () => {
    expect(warning(alert('deposit', 'FAILED'))).toEqual([
      ':warning: *This deposit failed.* No funds were credited by it.',
    ]);
  });

  it('a withdrawal or remittance the wallet history lists as failed: the funds did not leave; check before sending again', () => {
    for (const kind of ['withdrawal', 'remittance'] as const) {
      for (const status of ['FAILED', 'NOT_PROPAGATED']) {
        const listed = alert(kind, status);
        listed.verification = { state: 'confirmed', attempts: 1, listStatus: 'failed' };
        const [w, ...more] = warning(listed);
        expect(more).toEqual([]);
        expect(w).toMatch(new RegExp(`^:warning: \\*This ${kind} (failed|was not propagated to the network)\\.\\*`));
        expect(w).toContain('did not leave the wallet');
        expect(w).toContain('check the wallet service before sending it again');
        expect(w).not.toContain('credited');
      }
    }
  });

  it('a withdrawal or remittance only a notification calls failed is a claim: never "did not leave", never "send it again"', () => {
    for (const kind of ['withdrawal', 'remittance'] as const) {
      for (const listStatus of [undefined, 'successful']) {
        const claimed = alert(kind, 'FAILED');
        if (listStatus) claimed.verification = { state: 'confirmed', attempts: 1, listStatus };
        const [w] = warning(claimed);
        expect(w).toMatch(new RegExp(`^:warning: \\*A notification says this ${kind} failed\\.\\*`));
        expect(w).toContain('do not send it again until it does');
        expect(w).not.toContain('did not leave');
      }
    }
  });

  it('an unrecognised notification: a generic warning that claims nothing about the funds', () => {
    const [w] = warning({ ...alert('unknown', 'FAILED'), typeName: 'FROZEN' });
    expect(w).toMatch(/^:warning: \*This notification reports a transaction that failed\.\* Check the wallet service/);
    expect(w).not.toMatch(/credited|did not leave/);
  });

  it('no warning while pending or once confirmed', () => {
    expect(warning(alert('withdrawal', 'PENDING'))).toEqual([]);
    expect(warning(alert('deposit', 'CONFIRMED'))).toEqual([]);
  });
});

const shownText = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe('alert messages: what finance staff read', () => {
  const at = Date.UTC(2026, 10, 20, 9, 30);
  const big = (over: Partial<Alert> = {}): Alert => ({
    ...alert('deposit', 'CONFIRMED'),
    verification: { state: 'confirmed', attempts: 1 },
    amount: '25000',
    currency: 'USDT',
    createdAt: at,
    ...over,
  });

  it('amounts in the one format, the status in the one word set, and when it happened as a Slack date', () => {
    const m = renderAlert(big());
    expect(m.text).toBe('Deposit of 25,000.00 USDT on TRON: confirmed');
    const shown = shownText(m);
    expect(shown).toContain(`<!date^${at / 1000}^{date_short_pretty} {time}|2026-11-20 09:30 UTC>`);
    expect(shown).toContain(':white_check_mark: confirmed');
    expect(shown).not.toContain('25000');
  });

  it('a reconciliation finding says where it was found, in words', () => {
    const shown = shownText(renderAlert(big({ source: 'reconciliation' })));
    expect(shown).toContain("Found in the wallet's history, no notification received");
  });

  it('no jargon, no internal ids', () => {
    for (const state of ['unverified', 'confirmed', 'not_found'] as const) {
      const shown = shownText(renderAlert(big({ verification: { state, attempts: 1 } })));
      expect(shown).not.toMatch(/webhook|reconciliation|transaction list/i);
      expect(shown).not.toContain('al_deposit');
      expect(shown).not.toContain('ev_1');
    }
  });

  it("a withdrawal's reference is shown short, never as a full internal id", () => {
    const ref = '466488bf-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const shown = shownText(renderAlert({ ...big(), kind: 'withdrawal', merchantReference: ref }));
    expect(shown).toContain('*Reference*\\n`466488bf`');
    expect(shown).not.toContain(ref);
  });

  it('batch lines and header use the same formats and words, with the time once for the message', () => {
    const m = renderAlertBatch([
      big({ id: 'a1', amount: '1234.5' }),
      big({ id: 'a2', amount: '0.5', status: 'PENDING' }),
      big({ id: 'a3', source: 'reconciliation', amount: '10' }),
    ]);
    expect(m.text).toBe('3 deposits: 1,245.00 USDT');
    const shown = shownText(m);
    expect(shown).toContain('*1,234.50 USDT* · TRON · confirmed');
    expect(shown).toContain('*0.50 USDT* · TRON · pending');
    expect(shown).toContain("_found in the wallet's history, no notification received_");
    expect(shown).toContain(`Notified <!date^${at / 1000}^`);
    expect(shown).not.toMatch(/webhook|reconciliation|settled/i);
  });

  it('a status change in the thread is a plain sentence with a Slack date', () => {
    const a = big();
    const h = { status: 'NOT_PROPAGATED', at, source: 'reconciliation' as const, applied: true, eventId: 'ev_2' };
    expect(renderStatusChange(a, h).text).toBe(
      `:warning: Now failed: never reached the network, <!date^${at / 1000}^{date_short_pretty} {time}|2026-11-20 09:30 UTC> (found in the wallet's history, no notification received).`,
    );
  });

  it('the unknown-shape and history lines say what happened in words, with a Slack time', () => {
    const u = renderUnknownWindow({ count: 2, since: at } as never, undefined);
    expect(u.text).toMatch(/^2 notifications from the wallet service in a form we do not recognise since <!date\^/);
    expect(renderHistoryLine(3, 24 * 3_600_000).text).toBe(
      '3 deposits in the 24 h before the app was connected: see `/tx type=deposit`',
    );
  });
});
