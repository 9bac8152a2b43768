/**
 * `GET /api/merchantClientWithdrawal/status/{merchantReference}` (public-facts.md): the status
 * of a withdrawal by the merchant's reference, from what the sandbox executed. Sandbox
 * withdrawals settle at once, so a listed one is Completed (3) or Failed (4); a reference the
 * sandbox never saw is NotFound (1), still a v1 success envelope. `setWithdrawalStatus` (a test
 * control) can make a reference answer Pending (2) or anything else.
 */
import { jsonDecimal } from '../wallet/json.js';
import { requireApiKey, type AuthDeps } from './auth.js';
import { v1Fail, v1Ok, type Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';
import type { TransactionRecord } from './state.js';

export const STATUS_PREFIX = '/api/merchantClientWithdrawal/status';

export interface StatusDeps extends AuthDeps {
  /** Test overrides by reference: the wire value to answer (a code, a numeric string or a name). */
  overrides: Map<string, unknown>;
}

/** The reference as sent (the router lower-cases paths; references are case-sensitive). */
function referenceOf(req: SandboxRequest): string {
  const pathname = new URL(req.target, 'http://sandbox.invalid').pathname;
  const rest = pathname.slice(STATUS_PREFIX.length + 1).replace(/\/+$/, '');
  try {
    return decodeURIComponent(rest);
  } catch {
    return '';
  }
}

export function withdrawalStatus(deps: StatusDeps, req: SandboxRequest): Reply {
  const auth = requireApiKey(deps, req);
  if (!auth.ok) return auth.reply;
  const reference = referenceOf(req);
  if (!reference.trim() || reference.includes('/'))
    return v1Fail('Invalid merchant reference', 'A merchant reference is required in the path');
  const tx: TransactionRecord | undefined = deps.state
    .transactions()
    .find(
      (t) => t.merchantEmail === auth.merchant.email && t.transactionType === 'Withdrawal' && t.reference === reference,
    );
  const override = deps.overrides.get(reference);
  const status = override ?? (!tx ? 1 : tx.transactionStatus === 'FAILED' ? 4 : 3);
  return v1Ok({
    amount: tx ? jsonDecimal(tx.amount) : null,
    destinationAddress: tx?.toAddress ?? null,
    transactionHash: tx?.transactionHash ?? null,
    merchantReference: reference,
    withdrawalStatus: status,
  });
}
