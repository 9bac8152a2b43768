/**
 * One withdrawal through the whole app, as finance staff make it: asked with `/withdraw` by
 * Alice, approved on its card by Carol and Dave, sent to the sandbox, which charges 1 USDT on
 * top ("Debited 5,001.00 USDT · delivered 5,000.00 · fee 1.00"). Shared by the export and
 * digest stories.
 */
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { CHANNELS, startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

export const CLIENT = 'ada.okafor@example.com';
/** On the test policy's allowlist as "Exchange hot wallet". */
export const HOT_WALLET = '0x1111111111111111111111111111111111111111';
export const NAMES = { alice: 'Alice Requester', carol: 'Carol Approver', dave: 'Dave Approver' };
export const NOTE = 'October payout, invoice =7';

export async function startWithNames(): Promise<TestApp> {
  const t = await startTestApp({
    fakeOptions: {
      users: {
        [USERS.alice]: { real_name: NAMES.alice },
        [USERS.carol]: { real_name: NAMES.carol },
        [USERS.dave]: { real_name: NAMES.dave },
      },
    },
  });
  t.app.sandbox!.resetTransactions([]);
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
  return t;
}

/** Asks, approves twice, and waits until the service's answer completed it. */
export async function withdrawWithFee(t: TestApp): Promise<WithdrawalRequest> {
  await t.command('/withdraw', `5000 USDT BSC ${HOT_WALLET} ${CLIENT} ${NOTE}`, USERS.alice);
  const r = await until('the request', () => t.app.deps.withdrawals.list()[0]);
  const card = await until('the card', () =>
    t.fake.channel(CHANNELS.approvals).find((m) => m.text?.includes(r.merchantReference.slice(0, 8))),
  );
  for (const user of [USERS.carol, USERS.dave])
    await t.click(
      user,
      { actionId: ACTIONS.approve, value: r.id },
      { channel: CHANNELS.approvals, message: { ts: card.ts } },
    );
  return until(
    'the completed withdrawal',
    () => {
      const now = t.app.deps.withdrawals.get(r.id);
      return now?.state === 'completed' ? now : undefined;
    },
    20_000,
  );
}
