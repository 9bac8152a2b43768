/**
 * What an accountant needs beside a transaction-list record to book it: the wallet's list says
 * amount, addresses, hash and one reference; the app knows the rest for its own withdrawals
 * (joined by the merchant reference, which the list gives as a withdrawal's `reference`): the
 * fee the service charged, what was debited, the client, the note, who asked and who approved,
 * and the service's own reference. Deposits have no requester or approvers: those stay empty.
 *
 * Pure: the records, the requests and the look-ups in, one booking per record out.
 */
import { statusDetail } from '../format/status.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import { settlementOf } from '../withdrawals/fees.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';
import { exactAmount, whenOf } from './values.js';

export interface Booking {
  r: TransactionRecord;
  /** Our withdrawal request behind the record, when it is one of ours. */
  request?: WithdrawalRequest;
  /** The app's one word: confirmed, failed, pending… (src/format/status.ts). */
  status: string;
  /** The UTC day the money moved (YYYY-MM-DD), '' when the service gave no time. */
  valueDate: string;
  /** The fee the service charged (exact decimal text), '' when none or not known. */
  fee: string;
  feeCurrency: string;
  /** What left the client wallet in the record's currency (amount + fee when the fee is on top), '' when not known. */
  debited: string;
  client: string;
  /** The allowlist's label of the destination (withdrawals), '' when not listed. */
  payee: string;
  note: string;
  /** Slack user ids; the export resolves them to names. */
  requester: string;
  approvers: string[];
  /** The reference the app sent with the withdrawal (the list's `reference` of a withdrawal). */
  merchantReference: string;
  /** The wallet service's own reference (its answer to our withdrawal; the list's `reference` of a deposit). */
  serviceReference: string;
}

export interface BookingSources {
  requests: readonly WithdrawalRequest[];
  clientOf?: (r: TransactionRecord) => string | undefined;
  /** The allowlist's label for an address on a network. */
  payeeOf?: (network: string, address: string) => string | undefined;
}

const currencyOf = (r: TransactionRecord) => r.currency?.name ?? r.currencyName;
const networkOf = (r: TransactionRecord) => r.network?.name ?? r.networkName;

/** The app's word for a list record's status. */
export function recordStatus(r: TransactionRecord): string {
  return statusDetail(r.status === 'unknown' ? r.statusName : r.status);
}

export function bookings(records: readonly TransactionRecord[], s: BookingSources): Booking[] {
  const byReference = new Map(s.requests.map((w) => [w.merchantReference, w]));
  return records.map((r) => {
    const request = r.type !== 'deposit' && r.reference ? byReference.get(r.reference) : undefined;
    const at = whenOf(r);
    const settled = request ? settlementOf(request) : undefined;
    const fee = settled?.fee ? exactAmount(settled.fee) : undefined;
    const hasFee = fee !== undefined && !/^0(\.0*)?$/.test(fee);
    const deposit = r.type === 'deposit';
    const destination = !deposit && r.toAddress ? r.toAddress : undefined;
    return {
      r,
      ...(request ? { request } : {}),
      status: recordStatus(r),
      valueDate: at ? at.toISOString().slice(0, 10) : '',
      fee: hasFee ? fee : '',
      feeCurrency: hasFee ? (settled?.feeCurrency ?? currencyOf(r)) : '',
      debited: hasFee && settled?.debited ? settled.debited : '',
      client: request?.clientEmail ?? s.clientOf?.(r) ?? '',
      payee: (destination && s.payeeOf?.(networkOf(r), destination)) || '',
      note: request?.note ?? '',
      requester: request?.requester ?? '',
      approvers: request ? request.approvals.map((a) => a.user) : [],
      merchantReference: deposit ? '' : (r.reference ?? ''),
      serviceReference: deposit ? (r.reference ?? '') : (request?.result?.serviceReference ?? ''),
    };
  });
}

/** Every person named in the bookings (to resolve to names once). */
export function peopleIn(list: readonly Booking[]): string[] {
  return [...new Set(list.flatMap((b) => [b.requester, ...b.approvers].filter(Boolean)))];
}

/**
 * The allowlist's label of a destination, as `payeeOf`. TRON's base58 addresses are compared
 * as written; EVM hex addresses in any case, as the withdrawal rules compare them.
 */
export function allowlistPayee(
  entries: readonly { address: string; network: string; label: string }[],
): (network: string, address: string) => string | undefined {
  return (network, address) =>
    entries.find(
      (e) =>
        e.network === network &&
        (network === 'TRON' ? e.address === address : e.address.toLowerCase() === address.toLowerCase()),
    )?.label;
}
