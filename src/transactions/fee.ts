/**
 * A transaction's fee as the service reported it, for the /tx list and the exports (issue 40).
 * The service's transaction record has no fee field (the spec's record: status, type, hash,
 * addresses, amount, network, currency, time, reference); the fee is in its answer to a
 * withdrawal the app sent (`transactionCharge`, src/withdrawals/fees.ts). So a withdrawal the
 * app made has its fee and what was debited; any other record says the service did not report
 * one, rather than an empty cell a reader takes for "no fee".
 */
import type { TransactionRecord } from '../wallet/schemas.js';
import { settlementOf } from '../withdrawals/fees.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import { exactAmount } from './values.js';

/** The words where the service gave no fee (a cell, a /tx line). */
export const FEE_NOT_REPORTED = 'fee not reported by the service';

export type FeeFact =
  | {
      kind: 'reported';
      /** Exact decimal text; '0' when the service charged none. */
      fee: string;
      /** The fee's currency (gas may be paid in another). */
      currency: string;
      /** What left the client wallet in the record's currency, when the numbers say. */
      debited?: string;
    }
  | { kind: 'not_reported' };

/** The fee of a record, from the app's request behind it (joined by the merchant reference) when there is one. */
export function feeOf(r: TransactionRecord, request: WithdrawalRequest | undefined): FeeFact {
  const settled = request ? settlementOf(request) : undefined;
  // The service answered the send but named no fee: not reported, as for a record of its history.
  if (!settled?.fee) return { kind: 'not_reported' };
  const fee = exactAmount(settled.fee);
  if (fee === undefined) return { kind: 'not_reported' };
  const currency = settled.feeCurrency ?? r.currency?.name ?? r.currencyName;
  const zero = /^0(\.0*)?$/.test(fee);
  const debited = settled.debited ?? (zero ? settled.delivered : undefined);
  return { kind: 'reported', fee: zero ? '0' : fee, currency, ...(debited ? { debited } : {}) };
}

/** The request behind each withdrawal record, by its merchant reference. */
export function requestsByReference(
  requests: readonly WithdrawalRequest[],
): (r: TransactionRecord) => WithdrawalRequest | undefined {
  const byReference = new Map(requests.map((w) => [w.merchantReference, w]));
  return (r) => (r.type !== 'deposit' && r.reference ? byReference.get(r.reference) : undefined);
}
