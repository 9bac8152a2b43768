/**
 * Issue 40: cards and alerts carry Slack message metadata, so a team's own workflows can react
 * (`message_metadata_posted`/`_updated`). Through the whole app: a withdrawal asked, approved and
 * sent by the sandbox, and a deposit confirmed by the wallet's history; what the fake Slack
 * recorded on each message is read back. The outbox's `outbox_id` stays in every payload (how a
 * lost post is found again), and nothing personal (no e-mail, no address, no note) is in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';
import { alertMetadata, withdrawalMetadata } from '../../src/slack/message-metadata.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { CLIENT, HOT_WALLET, NOTE, startWithNames, withdrawWithFee } from '../exports/withdrawal-with-fee.js';
import { CHANNELS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

interface Meta {
  event_type: string;
  event_payload: Record<string, unknown>;
}
let t: TestApp;
let request: WithdrawalRequest;

beforeAll(async () => {
  t = await startWithNames();
  request = await withdrawWithFee(t);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const personal = (m: Meta) => JSON.stringify(m).match(new RegExp(`${CLIENT}|${HOT_WALLET}|${NOTE}`, 'i'));

describe('message metadata on cards and alerts', () => {
  it('the card is posted as treasury_withdrawal_requested, with ids and the exact amount', async () => {
    const post = t.fake
      .calls('chat.postMessage')
      .map((c) => c.args.metadata as Meta | undefined)
      .find((m) => m?.event_payload.withdrawal_id === request.id);
    expect(post).toMatchObject({
      event_type: 'treasury_withdrawal_requested',
      event_payload: {
        withdrawal_id: request.id,
        merchant_reference: request.merchantReference,
        state: 'pending',
        amount: '5000',
        currency: 'USDT',
        network: 'BSC',
        approvals: 0,
        approvals_needed: 2,
        outbox_id: expect.any(String),
      },
    });
    expect(personal(post!)).toBeNull();
  });

  it('once the service settled it, the card says treasury_withdrawal_settled with the fee and the hash', async () => {
    const card = await until('the settled card', () =>
      t.fake
        .channel(CHANNELS.approvals)
        .find((m) => (m.metadata as Meta | undefined)?.event_type === 'treasury_withdrawal_settled'),
    );
    const meta = card.metadata as Meta;
    expect(meta.event_payload).toMatchObject({
      withdrawal_id: request.id,
      state: 'completed',
      service_reference: request.result!.serviceReference,
      fee: '1',
      fee_currency: 'USDT',
      approvals: 2,
      outbox_id: expect.any(String),
    });
    // The hash, once the service gave it, on the card's latest edit.
    // Waited for, then asserted: a hash not yet recorded must not skip the check.
    const hash = await until(
      'the transaction hash',
      () => t.app.deps.withdrawals.get(request.id)!.result?.transactionHash,
    );
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    await until('the card with the hash', () =>
      t.fake
        .channel(CHANNELS.approvals)
        .some((m) => (m.metadata as Meta | undefined)?.event_payload.transaction_hash === hash),
    );
    expect(personal(meta)).toBeNull();
  });

  it('a deposit alert turns treasury_deposit_confirmed once the wallet’s history confirms it', async () => {
    await t.app.sandbox!.deposit({ to: CLIENT, amount: '250', currency: 'USDT', network: 'BSC' });
    const stored = await until(
      'the deposit confirmed',
      () =>
        t.app.deps.store.find(
          ALERT_COLLECTIONS.alerts,
          (a) => a.amount === '250' && a.verification.state === 'confirmed',
        )[0],
      20_000,
    );
    const alert = await until('its message, edited to confirmed', () =>
      t.fake
        .channel(stored.channel)
        .find((m) => (m.metadata as Meta | undefined)?.event_type === 'treasury_deposit_confirmed'),
    );
    const meta = alert.metadata as Meta;
    expect(meta.event_payload).toMatchObject({
      alert_id: stored.id,
      kind: 'deposit',
      verification: 'confirmed',
      amount: '250',
      currency: 'USDT',
      network: 'BSC',
      transaction_hash: stored.hash,
      outbox_id: expect.any(String),
    });
    expect(personal(meta)).toBeNull();
  });
});

describe('the metadata, pure', () => {
  it('event types are letters, digits and underscores; values are strings, numbers or booleans, bounded', () => {
    const alert = {
      id: 'a1',
      kind: 'unknown',
      verification: { state: 'unverified' },
      amount: '1',
      hash: 'x'.repeat(5000),
    } as never;
    const m = alertMetadata(alert);
    expect(m.event_type).toBe('treasury_transaction_reported');
    expect(m.event_type).toMatch(/^[a-z0-9_]+$/);
    expect(String(m.event_payload.transaction_hash)).toHaveLength(200);
    for (const v of Object.values(withdrawalMetadata(request).event_payload))
      expect(['string', 'number', 'boolean']).toContain(typeof v);
  });
});
