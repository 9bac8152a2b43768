/**
 * The words for each kind of alert, in one table (the domain's table of kinds is
 * src/alerts/kinds.ts): a `Record` over every kind, so a new kind does not compile until it
 * has its words.
 */
import type { AlertKind } from '../alerts/index.js';

export interface KindWords {
  /** "Deposit": a message's headline. */
  title: string;
  /** "deposits": a batch message's count. */
  plural: string;
  /** What it counts as once the wallet's history backs it ("received"). */
  countsAs: string;
  /**
   * Money going out: a failure only a notification tells of is a claim, never "did not leave"
   * (anyone holding the webhook URL can make one, and a resend on a false "failed" pays twice).
   */
  outgoing: boolean;
  /** What a failure means for the money, once the wallet service itself says it failed. */
  failure: string;
}

const CHECK_BEFORE_RESENDING = 'The funds did not leave the wallet: check the wallet service before sending it again.';

export const KIND_WORDS: Readonly<Record<AlertKind, KindWords>> = {
  deposit: {
    title: 'Deposit',
    plural: 'deposits',
    countsAs: 'received',
    outgoing: false,
    failure: 'No funds were credited by it.',
  },
  withdrawal: {
    title: 'Withdrawal',
    plural: 'withdrawals',
    countsAs: 'sent',
    outgoing: true,
    failure: CHECK_BEFORE_RESENDING,
  },
  remittance: {
    title: 'Remittance',
    plural: 'remittances',
    countsAs: 'sent',
    outgoing: true,
    failure: CHECK_BEFORE_RESENDING,
  },
  transfer: {
    title: 'Transfer',
    plural: 'transfers',
    countsAs: 'moved',
    outgoing: false,
    failure: 'Check the wallet service for where the funds are.',
  },
  unknown: {
    title: 'Wallet notification',
    plural: 'notifications',
    countsAs: 'counted',
    outgoing: false,
    failure: 'Check the wallet service for what happened.',
  },
};

/** "a deposit", "a wallet notification": a kind in running text. */
export const aKind = (kind: AlertKind): string => `a ${KIND_WORDS[kind].title.toLowerCase()}`;
