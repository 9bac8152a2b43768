/**
 * What each kind of notification is checked against: the one table of alert kinds in the
 * domain (the words for each kind are on the Slack side, in src/slack/alert-kind-words.ts).
 * A `Record` over every kind, so a new kind does not compile until it says how the wallet's
 * history backs it.
 *
 * Every notification is a claim (ARCHITECTURE.md invariant 14): anyone who learns the webhook
 * URL can post one. A kind the history cannot show is never confirmed by it.
 */
import type { AlertKind } from './parse.js';

/** A transaction-list record's type, as the wallet client reads it. */
export type ListedType = 'deposit' | 'withdrawal';

export interface KindRules {
  /**
   * The types the wallet's history may list this kind as; a record of another type with the
   * same hash is not this transaction's record. Empty: the history cannot show it.
   */
  listedAs: readonly ListedType[];
  /**
   * sweep: many at once, a window of the deposit list per call (sweep.ts; deposits come in
   * bursts); hash: one look-up by hash each (verify.ts; few, and often our own); none: never.
   */
  checkedBy: 'sweep' | 'hash' | 'none';
}

export const KIND_RULES: Readonly<Record<AlertKind, KindRules>> = {
  // Merchant deposits are read as deposits (parse.ts): one key space, one record type.
  deposit: { listedAs: ['deposit'], checkedBy: 'sweep' },
  withdrawal: { listedAs: ['withdrawal'], checkedBy: 'hash' },
  // Money paid out of the merchant's wallet: the list knows only Deposit and Withdrawal.
  remittance: { listedAs: ['withdrawal'], checkedBy: 'hash' },
  // Between wallets: the list may show either side.
  transfer: { listedAs: ['deposit', 'withdrawal'], checkedBy: 'hash' },
  // A shape we do not read has no amount or type we could hold the history to.
  unknown: { listedAs: [], checkedBy: 'none' },
};

/** Whether alerts of this kind are ever checked against the wallet's history. */
export const checkable = (kind: AlertKind): boolean => KIND_RULES[kind].checkedBy !== 'none';
