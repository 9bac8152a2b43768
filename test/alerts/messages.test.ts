import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/index.js';
import { renderAlert } from '../../src/slack/alert-messages.js';

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
    expect(warning(alert('deposit', 'FAILED'))).toEqual([':warning: *This deposit failed.* No funds were credited by it.']);
  });

  it('a withdrawal or remittance: the funds did not leave; check before sending again', () => {
    for (const kind of ['withdrawal', 'remittance'] as const) {
      for (const status of ['FAILED', 'NOT_PROPAGATED']) {
        const [w, ...more] = warning(alert(kind, status));
        expect(more).toEqual([]);
        expect(w).toMatch(new RegExp(`^:warning: \\*This ${kind} (failed|was not propagated to the network)\\.\\*`));
        expect(w).toContain('did not leave the wallet');
        expect(w).toContain('check the wallet service before sending it again');
        expect(w).not.toContain('credited');
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
