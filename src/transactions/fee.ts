/**
 * A transaction's fee as the service reported it, for the /tx list and the exports (issue 40).
 * The service's transaction record has no fee field (the spec's record: status, type, hash,
 * addresses, amount, network, currency, time, reference); the fee is in its answer to a
 * withdrawal the app sent (`transactionCharge`, src/withdrawals/fees.ts), and in the `charge`
 * of its notification of a movement (src/alerts/ingest.ts). So a withdrawal the app made has its
 * fee and what was debited; a record whose confirmed notification carried a charge has that fee,
 * said to be from the notification; any other record says the service did not report one,
 * rather than an empty cell a reader takes for "no fee".
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
      /** Set when the fee is the `charge` of the service's notification (not its answer to our send). */
      from?: 'notification';
    }
  | { kind: 'not_reported' };

/** A fee the service's notification of a movement carried (its `charge`), in the movement's currency. */
export interface NotifiedFee {
  fee: string;
  currency: string;
}
export type NotifiedFees = (r: TransactionRecord) => NotifiedFee | undefined;

/** Words beside a fee taken from a notification (a /tx line; the CSV's debited cell). */
export const FEE_FROM_NOTIFICATION = "from the service's notification";

/**
 * The fee of a record, from the app's request behind it (joined by the merchant reference) when
 * there is one; else the `charge` of the service's notification of it (`notified`), said so.
 */
export function feeOf(r: TransactionRecord, request: WithdrawalRequest | undefined, notified?: NotifiedFees): FeeFact {
  const settled = request ? settlementOf(request) : undefined;
  if (!settled?.fee) {
    const n = notified?.(r);
    const fee = n ? exactAmount(n.fee) : undefined;
    // The service answered the send but named no fee, and no notification did: not reported.
    if (!n || fee === undefined) return { kind: 'not_reported' };
    return { kind: 'reported', fee: /^0(\.0*)?$/.test(fee) ? '0' : fee, currency: n.currency, from: 'notification' };
  }
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

/** What notificationFees reads of a stored alert (src/alerts/types.ts Alert). */
export interface NotifiedMovement {
  hash?: string;
  reference?: string;
  merchantReference?: string;
  charge?: string;
  currency?: string;
  verification: { state: string };
}

/**
 * The fees the service's notifications carried, by transaction hash, else reference. Only a
 * notification the wallet's history confirmed counts: an unconfirmed one is a claim anyone who
 * can reach the webhook could make (what arrives is a claim).
 */
export function notificationFees(alerts: readonly NotifiedMovement[]): NotifiedFees {
  const byKey = new Map<string, NotifiedFee>();
  for (const a of alerts) {
    if (!a.charge || !a.currency || a.verification.state !== 'confirmed') continue;
    const fee = { fee: a.charge, currency: a.currency };
    for (const k of [
      a.hash && `h:${a.hash.toLowerCase()}`,
      a.reference && `r:${a.reference}`,
      a.merchantReference && `r:${a.merchantReference}`,
    ])
      if (k && !byKey.has(k)) byKey.set(k, fee);
  }
  return (r) =>
    (r.hash ? byKey.get(`h:${r.hash.toLowerCase()}`) : undefined) ??
    (r.reference ? byKey.get(`r:${r.reference}`) : undefined);
}
