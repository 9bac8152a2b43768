/**
 * The wallet service's answers as the decider sees them: the answer to the one withdrawal
 * POST (checked against what was approved), the error it threw (classified: refused, not sent,
 * or possibly sent), its status for our reference (checked against the request too), and a
 * record of the transaction list (for reconciliation).
 */
import { addressFamily } from '../wallet/addresses.js';
import type { WalletClient } from '../wallet/client.js';
import { CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';
import { WalletError, WalletRejectedError } from '../wallet/errors.js';
import { Dec } from '../money/decimal.js';
import { sameAddress } from './rules.js';
import type { WithdrawalRequest } from './types.js';

/** The wallet service's answer to the withdrawal POST. */
export type WithdrawAnswer = Awaited<ReturnType<WalletClient['withdraw']>>;
/** A record of the wallet service's transaction list. */
export type ListedTransaction = Awaited<ReturnType<WalletClient['listTransactions']>>['records'][number];

/** What the one send produced: an answer, or the error it threw (classified by `classifySendError`). */
export type SendOutcome = { ok: true; answer: WithdrawAnswer } | { ok: false; error: unknown };

/** The service's answer checked against what was approved: it must be about the same payment. */
export function answerMismatches(req: WithdrawalRequest, answer: WithdrawAnswer): string[] {
  const out: string[] = [];
  if (answer.merchantReference && answer.merchantReference !== req.merchantReference) {
    out.push(`merchant reference ${answer.merchantReference} instead of ${req.merchantReference}`);
  }
  if (answer.destinationAddress && !sameDestination(req, answer.destinationAddress)) {
    out.push(`destination ${answer.destinationAddress} instead of ${req.destination}`);
  }
  const requested = answer.amountRequested ?? answer.amount;
  if (requested && !new Dec(requested).eq(req.amount)) out.push(`amount ${requested} instead of ${req.amount}`);
  return out;
}

/**
 * The service's status for our reference checked against the request, where it carries a
 * destination or an amount (service-mismatch.ts). The amount is compared as a decimal with the
 * amount approved; an unreadable amount is a mismatch too.
 */
export function statusMismatches(
  req: WithdrawalRequest,
  status: { destinationAddress: string | null; amount: string | null },
): string[] {
  const out: string[] = [];
  const destination = status.destinationAddress?.trim();
  if (destination && !sameDestination(req, destination))
    out.push(`destination ${destination} instead of ${req.destination}`);
  const amount = status.amount?.trim();
  if (amount && !sameAmount(amount, req.amount)) out.push(`amount ${amount} instead of ${req.amount}`);
  return out;
}

function sameAmount(a: string, b: string): boolean {
  try {
    return new Dec(a).eq(b);
  } catch {
    return false;
  }
}

/** The same address as the request's destination, compared as its family requires (TRON's base58 is case-sensitive). */
function sameDestination(req: WithdrawalRequest, address: string): boolean {
  const currency = lookup(CURRENCIES, req.currency);
  const network = lookup(NETWORKS, req.network);
  // A stored request always names a known currency and network; if not, only an exact match is the same.
  if (!currency || !network) return address === req.destination;
  return sameAddress(addressFamily(network), address, req.destination);
}

/** What a failed send means: refused or not sent (failed), or possibly sent (unknown, to reconcile). */
export function classifySendError(err: unknown): {
  state: 'failed' | 'unknown';
  errorKind: 'rejected' | 'not_sent';
  kind: string;
  message: string;
} {
  if (err instanceof WalletRejectedError) {
    // The service's verification callback (src/verification/) did not confirm it: say so in words.
    if (/not verified by merchant/i.test(err.serviceMessage))
      return {
        state: 'failed',
        errorKind: 'rejected',
        kind: 'not_verified',
        message: "The wallet service refused it: the merchant's verification did not confirm it.",
      };
    return {
      state: 'failed',
      errorKind: 'rejected',
      kind: err.kind,
      message: `The wallet service refused the withdrawal: ${err.serviceMessage}`,
    };
  }
  // The lease refused the call before it left (src/store/pg/leader.ts): this replica stopped
  // leading and nothing reached the service. Not "may have moved": nothing did.
  if (err instanceof Error && (err as { nothingSent?: unknown }).nothingSent === true) {
    return {
      state: 'failed',
      errorKind: 'not_sent',
      kind: 'unavailable',
      message: 'Nothing was sent: this app instance stopped leading before the call went out. Submit it again.',
    };
  }
  if (err instanceof WalletError && !err.mayHaveChanged) {
    return { state: 'failed', errorKind: 'not_sent', kind: err.kind, message: `Nothing was sent: ${err.message}` };
  }
  if (err instanceof WalletError) {
    return { state: 'unknown', errorKind: 'not_sent', kind: err.kind, message: err.message };
  }
  // Not a wallet error: we cannot tell how far the call got, so assume it may have gone out.
  return {
    state: 'unknown',
    errorKind: 'not_sent',
    kind: 'internal',
    message: 'The withdrawal call failed inside the app; the money may have moved.',
  };
}
