/**
 * Requests built by the decider alone, for the tests of notifications and of the questions they
 * prompt (notice-claims.test.ts, reconcile-notice.test.ts).
 */
import { WalletUnknownOutcomeError } from '../../src/wallet/errors.js';
import { decide, type DecideContext, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import type { ServiceWord } from '../../src/withdrawals/notice.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { T0, testPolicy, usdt } from './helpers.js';

export const policy = testPolicy();
export const ctx = (now = T0 + 60_000): DecideContext => ({ now, policy });

/** The request after the commands, each of which must change it. */
export function build(id: string, ...commands: WithdrawalCommand[]): WithdrawalRequest {
  const checked = admitRequest(policy, usdt('10'), true);
  if (!checked.ok) throw new Error(checked.message);
  let req: WithdrawalRequest | undefined;
  const all: WithdrawalCommand[] = [
    { type: 'request', requester: 'U0ALICE', checked, id, merchantReference: `ref-${id}`, existing: [] },
    ...commands,
  ];
  for (const c of all) {
    const d = decide(c, req, ctx());
    if (d.kind !== 'changed') throw new Error(`build: ${c.type} gave ${d.kind}`);
    req = d.next;
  }
  return req!;
}

/** Sent, its answer lost: unknown. */
export const unknownRequest = (id = 'w1', ...more: WithdrawalCommand[]) =>
  build(
    id,
    { type: 'approve', user: 'U0CAROL', isApprover: true, satisfies: [] },
    { type: 'claim-for-sending' },
    {
      type: 'record-send-outcome',
      requestId: id,
      outcome: { ok: false, error: new WalletUnknownOutcomeError('timed out', { operation: 'withdraw' }) },
    },
    ...more,
  );

export const word = (status: ServiceWord['status'], o: Partial<ServiceWord> = {}): ServiceWord => ({
  via: 'status',
  status,
  transactionHash: '0xabc',
  ...o,
});
