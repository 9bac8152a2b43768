/**
 * The thread line that tells the admins, once per request, that the wallet service's status for
 * our reference names another destination or amount (src/withdrawals/service-mismatch.ts):
 * nothing was settled on it. The service's words are outside text: escaped with `outside()`.
 */
import { outside } from '../format/outside.js';
import type { Rendered } from '../outbox/index.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';

export const MISMATCH_RENDERER = 'withdrawal.service-mismatch';

/** `ref`: `${id}|${admins' mentions}`. */
export function renderServiceMismatch(
  ref: string,
  get: (id: string) => WithdrawalRequest | undefined,
): Rendered | null {
  const [id = '', mentions = ''] = ref.split('|');
  const m = get(id)?.serviceMismatch;
  if (!m) return null;
  const what = m.mismatches.map((x) => outside(x, 160)).join('; ');
  return {
    text: `🚨 The wallet service's answer for this reference does not match this request (${what}; it says ${outside(m.service, 40)}). Nothing was settled on it: check the withdrawal at the wallet service before anyone acts on it. ${mentions}`.trim(),
  };
}
