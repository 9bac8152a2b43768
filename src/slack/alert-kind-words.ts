/**
 * The Slack side of the table of alert kinds (the domain's is src/alert-kinds.ts): each kind's
 * words and the parts of its message that differ by kind. A `Record` over every kind, so a new
 * kind does not compile until it has its entry here; the renderers (alert-messages.ts,
 * alert-batch-message.ts, alert-trust-messages.ts) branch on no kind by name.
 */
import type { AlertKind } from '../alert-kinds.js';
import type { Alert } from '../alerts/index.js';

type Parties = Pick<Alert, 'receiveAddress' | 'depositAddress' | 'senderAddress' | 'receiverAddress'>;

export interface KindWords {
  /** "Deposit": a message's headline. */
  title: string;
  /** "deposits": a batch message's count. */
  plural: string;
  /** What it counts as once the wallet's history backs it ("received"). */
  countsAs: string;
  /** Who a failure warning is about ("This deposit"). */
  failureSubject: string;
  /** What a failure means for the money, once the wallet service itself says it failed. */
  failure: string;
  /** The addresses its message shows, labelled as its notifications mean them (values raw: the renderer escapes). */
  parties: (a: Parties) => Array<[label: string, address: string | undefined]>;
}

const CHECK_BEFORE_RESENDING = 'The funds did not leave the wallet: check the wallet service before sending it again.';

/** Money between two parties: who sent it, and to whom. */
const fromTo = (a: Parties): Array<[string, string | undefined]> => [
  ['From', a.senderAddress],
  ['To', a.receiverAddress],
];

export const KIND_WORDS: Readonly<Record<AlertKind, KindWords>> = {
  deposit: {
    title: 'Deposit',
    plural: 'deposits',
    countsAs: 'received',
    failureSubject: 'This deposit',
    failure: 'No funds were credited by it.',
    // Our generated address that received it, and where it came from.
    parties: (a) => [
      ['Deposit address', a.receiveAddress],
      ['From', a.depositAddress],
    ],
  },
  withdrawal: {
    title: 'Withdrawal',
    plural: 'withdrawals',
    countsAs: 'sent',
    failureSubject: 'This withdrawal',
    failure: CHECK_BEFORE_RESENDING,
    parties: fromTo,
  },
  remittance: {
    title: 'Remittance',
    plural: 'remittances',
    countsAs: 'sent',
    failureSubject: 'This remittance',
    failure: CHECK_BEFORE_RESENDING,
    parties: fromTo,
  },
  transfer: {
    title: 'Transfer',
    plural: 'transfers',
    countsAs: 'moved',
    failureSubject: 'This transfer',
    failure: 'Check the wallet service for where the funds are.',
    parties: fromTo,
  },
  unknown: {
    title: 'Wallet notification',
    plural: 'notifications',
    countsAs: 'counted',
    failureSubject: 'This notification reports a transaction that',
    failure: 'Check the wallet service for what happened.',
    parties: fromTo,
  },
};

/** "a deposit", "a wallet notification": a kind in running text. */
export const aKind = (kind: AlertKind): string => `a ${KIND_WORDS[kind].title.toLowerCase()}`;
