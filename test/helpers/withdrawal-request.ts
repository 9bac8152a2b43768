/**
 * A new withdrawal request as the decider makes it (admitted under `policy`, then the `request`
 * command): the one builder for tests that render or judge a request without running the service.
 */
import type { Policy } from '../../src/policy/schema.js';
import { decide } from '../../src/withdrawals/decide/index.js';
import { admitRequest } from '../../src/withdrawals/rules.js';
import type { RequestInput, WithdrawalRequest } from '../../src/withdrawals/types.js';

export function newRequest(o: {
  policy: Policy;
  input: RequestInput;
  now: number;
  id?: string;
  merchantReference?: string;
}): WithdrawalRequest {
  const checked = admitRequest(o.policy, o.input, true);
  if (!checked.ok) throw new Error(checked.message);
  const d = decide(
    {
      type: 'request',
      requester: 'U0ALICE',
      checked,
      id: o.id ?? 'w1',
      merchantReference: o.merchantReference ?? '1a2b3c4d-0000-4000-8000-000000000001',
      existing: [],
    },
    undefined,
    { now: o.now, policy: o.policy },
  );
  if (d.kind !== 'changed') throw new Error(JSON.stringify(d));
  return d.next;
}
