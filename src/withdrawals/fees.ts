/**
 * What a withdrawal costs, in the service's own numbers. The spec's answer carries
 * `withdrawnAmountRequested` (what we asked for), `withdrawnAmount` (what left for the payee)
 * and `transactionCharge` (the fee, in `transactionChargeCurrency`), but not whether the fee is
 * taken out of the amount or charged on top: both are read from the numbers themselves
 * (withdrawn + fee = requested: taken out; withdrawn = requested: on top). Before approval the
 * fee is only an estimate: the last one the service charged for that currency and network.
 */
import { Dec } from '../money/decimal.js';
import type { WithdrawalRequest } from './types.js';

/** taken: out of the amount (the payee receives less); on_top: debited besides it; other_currency: paid in another currency (e.g. gas). */
export type FeeMode = 'taken' | 'on_top' | 'other_currency';

export interface Settlement {
  /** Debited from the client wallet, in the request's currency; null when the numbers do not say. */
  debited: string | null;
  /** What the payee receives. */
  delivered: string;
  fee: string | null;
  feeCurrency: string | null;
  mode: FeeMode | null;
}

const plain = (d: Dec) => d.toFixed();

/** The settled numbers of a completed request; undefined when it has no result. */
export function settlementOf(r: Pick<WithdrawalRequest, 'amount' | 'currency' | 'result'>): Settlement | undefined {
  const res = r.result;
  if (!res) return undefined;
  const requested = res.amountRequested ?? r.amount;
  const withdrawn = res.amount ?? requested;
  if (!res.fee) return { debited: null, delivered: withdrawn, fee: null, feeCurrency: null, mode: null };
  const feeCurrency = res.feeCurrency ?? r.currency;
  if (feeCurrency !== r.currency)
    return { debited: withdrawn, delivered: withdrawn, fee: res.fee, feeCurrency, mode: 'other_currency' };
  if (new Dec(withdrawn).plus(res.fee).eq(requested) && !new Dec(res.fee).isZero()) {
    return { debited: plain(new Dec(requested)), delivered: withdrawn, fee: res.fee, feeCurrency, mode: 'taken' };
  }
  if (new Dec(withdrawn).eq(requested))
    return {
      debited: plain(new Dec(withdrawn).plus(res.fee)),
      delivered: withdrawn,
      fee: res.fee,
      feeCurrency,
      mode: 'on_top',
    };
  // Neither reading fits: say only what the service said.
  return { debited: null, delivered: withdrawn, fee: res.fee, feeCurrency, mode: null };
}

export interface FeeEstimate {
  fee: string;
  feeCurrency: string;
  mode: FeeMode;
  /** When the service charged it (the completed request's last history time). */
  chargedAt: string;
}

/** What a completed request tells of the fee: only the service's own answer counts. */
export function chargedFee(r: WithdrawalRequest): FeeEstimate | undefined {
  if (r.state !== 'completed' || r.result?.source !== 'wallet') return undefined;
  const s = settlementOf(r);
  if (!s?.fee || !s.feeCurrency || !s.mode) return undefined;
  return { fee: s.fee, feeCurrency: s.feeCurrency, mode: s.mode, chargedAt: r.history.at(-1)?.at ?? r.createdAt };
}

/** The later of two estimates (either may be missing). */
export const laterFee = (a: FeeEstimate | undefined, b: FeeEstimate | undefined): FeeEstimate | undefined =>
  !a ? b : !b ? a : b.chargedAt > a.chargedAt ? b : a;

/**
 * The fee of the latest withdrawal the service completed (with its own answer) in this currency
 * on this network, or undefined ("unknown yet"). `older`: the latest of those no longer in memory
 * (paid-summary.ts).
 */
export function feeEstimate(
  requests: readonly WithdrawalRequest[],
  currency: string,
  network: string,
  older?: FeeEstimate,
): FeeEstimate | undefined {
  let best = older;
  for (const r of requests) if (r.currency === currency && r.network === network) best = laterFee(best, chargedFee(r));
  return best;
}

export interface Expected {
  fee: string;
  feeCurrency: string;
  /** What the payee should receive. */
  delivered: string;
  /** Debited in the request's currency. */
  debited: string;
}

/** What an amount should cost under an estimate. */
export function expectedSettlement(amount: string, e: FeeEstimate): Expected {
  const a = new Dec(amount);
  switch (e.mode) {
    case 'taken':
      return {
        fee: e.fee,
        feeCurrency: e.feeCurrency,
        delivered: plain(Dec.max(0, a.minus(e.fee))),
        debited: plain(a),
      };
    case 'on_top':
      return { fee: e.fee, feeCurrency: e.feeCurrency, delivered: plain(a), debited: plain(a.plus(e.fee)) };
    case 'other_currency':
      return { fee: e.fee, feeCurrency: e.feeCurrency, delivered: plain(a), debited: plain(a) };
  }
}
