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
import type { WithdrawalRequest } from '../withdrawals/types.js';
import { type FeeFact, feeOf, type NotifiedFees, requestsByReference } from './fee.js';
import { whenOf } from './values.js';

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
  /** The fee as the service reported it, or that it did not (the plain CSV and /tx say which). */
  feeFact: FeeFact;
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
  /** The fees the service's notifications carried (fee.ts notificationFees). */
  notified?: NotifiedFees;
}

const networkOf = (r: TransactionRecord) => r.network?.name ?? r.networkName;

/** The app's word for a list record's status. */
export function recordStatus(r: TransactionRecord): string {
  return statusDetail(r.status === 'unknown' ? r.statusName : r.status);
}

export function bookings(records: readonly TransactionRecord[], s: BookingSources): Booking[] {
  const requestOf = requestsByReference(s.requests);
  return records.map((r) => {
    const request = requestOf(r);
    const at = whenOf(r);
    const feeFact = feeOf(r, request, s.notified);
    // A fee line for the accounting formats only where one was charged.
    const charged = feeFact.kind === 'reported' && feeFact.fee !== '0' ? feeFact : undefined;
    const deposit = r.type === 'deposit';
    const destination = !deposit && r.toAddress ? r.toAddress : undefined;
    return {
      r,
      ...(request ? { request } : {}),
      status: recordStatus(r),
      valueDate: at ? at.toISOString().slice(0, 10) : '',
      fee: charged?.fee ?? '',
      feeFact,
      feeCurrency: charged?.currency ?? '',
      debited: charged?.debited ?? '',
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
