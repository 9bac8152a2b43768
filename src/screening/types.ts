/**
 * The facts screening hands the rule table (read at each step, inside its commit: no I/O there),
 * and what a request keeps of its screening for the card and the audit log.
 */
import type { Tx } from '../store/index.js';
import type { ListRef, SanctionsList } from './list.js';

/** A sanctions provider's answer for one address (provider.ts), kept for a day (`down`: briefly). */
export type ProviderAnswer =
  | { kind: 'listed'; names: string[]; at: number }
  | { kind: 'clean'; at: number }
  | { kind: 'down'; reason: string; at: number };

export interface ScreeningFacts {
  list: SanctionsList;
  /** Whether the list is the one shipped with the app (its age then runs from its date). */
  bundled?: boolean;
  /** No SANCTIONS_LIST_URL: the bundled snapshot is all there is until one is set. */
  unsourced?: boolean;
  /** The provider's answers by address key; absent: no provider is configured. */
  provider?: { name: string; answer(address: string): ProviderAnswer | undefined };
}

/** A withdrawal stopped because its destination is sanctioned since its request: at which step, by which list. */
export interface SanctionsStop {
  at: string;
  step: 'approve' | 'send' | 'verify';
  reason: string;
  list?: { date: string; sha256: string };
}

/** What a request keeps of its screening at the last step judged (the card and the audit log read it). */
export interface ScreeningInfo {
  /** The list judged with (absent only when the app was given no list). */
  list?: ListRef;
  /** The list was older than screening.max_age: its age then (the request was below stale_block_above). */
  stale?: { ageMs: number };
  /** The provider's word: `down` means the list alone decided. Absent: no provider. */
  provider?: 'clean' | 'down';
  /** The destination imitates a known address: which, and how many more approvals it needs for it. */
  lookalike?: { label: string; address: string; extraApprovals: number };
}

/**
 * What the admins are told at once, in private, when screening stops money: a request refused for
 * a sanctioned destination, one stopped later (at an approval, the send or the callback), or a
 * deposit from a sanctioned sender. Travels in the outbox entry's ref (src/slack/screening-notice.ts words it).
 */
export interface ScreeningNotice {
  kind: 'request-refused' | 'stopped' | 'deposit' | 'list-refused';
  at: string;
  address: string;
  amount?: string;
  currency?: string;
  network?: string;
  /** The requester (a Slack id), for a request. */
  requester?: string;
  /** The domain's words of why. */
  reason: string;
  list?: Pick<ListRef, 'date' | 'sha256'>;
  /** The same event told once: a form submitted twice (its idempotency key) gives one message per admin. */
  once?: string;
}

/** What the withdrawal service is given of screening (src/screening/service.ts implements it). */
export interface WithdrawalScreening {
  facts(): ScreeningFacts;
  /** Asks the provider about the address before a commit (its answer is then in `facts()`). Never throws. */
  ask(address: string): Promise<unknown>;
  /** Tells the admins, inside the commit (the outbox). */
  tell?(tx: Tx, notice: ScreeningNotice): void;
}
