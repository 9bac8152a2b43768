/**
 * What a user reads when something fails: short, actionable, honest about whether
 * anything changed, and never a stack trace or a secret.
 */
import {
  isWalletError,
  type WalletKybError,
  type WalletRejectedError,
  type WalletUnavailableError,
  type WalletValidationError,
} from '../wallet/errors.js';
import { secrets } from '../secrets.js';
import { StoreUnavailableError, type UnavailableReason } from '../store/errors.js';
import { outside } from '../format/outside.js';

const STORE_WHY: ReadonlyMap<UnavailableReason, string> = new Map([
  ['disk_full', 'the disk is full'],
  ['quota', 'its disk quota is used up'],
  ['read_only', 'its data directory is read-only'],
  ['io', 'the disk reported an I/O error'],
  ['other', 'writing to its disk failed'],
]);

/** "The app cannot save right now: the disk is full. Nothing was changed." and its siblings. */
export function storeUnavailableMessage(err: StoreUnavailableError): string {
  return `The app cannot save right now: ${STORE_WHY.get(err.reason) ?? 'writing to its disk failed'}. Nothing was changed.`;
}

export function userMessage(err: unknown, action: string): string {
  if (err instanceof StoreUnavailableError) {
    return `:floppy_disk: ${storeUnavailableMessage(err)} ${action} can be tried again in a few minutes; the operators see the cause on /readyz.`;
  }
  if (isWalletError(err)) {
    switch (err.kind) {
      case 'kyb': {
        const e = err as WalletKybError;
        return `:lock: ${action} failed: the merchant account's KYB verification is *${e.kybStatus}*. ${e.advice}`;
      }
      case 'auth':
        return `:lock: ${action} failed: the wallet service rejected our credentials. An admin needs to check WALLET_MERCHANT_EMAIL / WALLET_MERCHANT_PASSWORD / WALLET_API_KEY. Nothing was changed.`;
      case 'rejected':
        return `:no_entry: ${action} was refused by the wallet service: “${secrets.scrub((err as WalletRejectedError).serviceMessage)}”. Nothing was changed.`;
      case 'unavailable': {
        const e = err as WalletUnavailableError;
        const why = e.reason === 'timeout' ? 'did not answer in time' : 'could not be reached';
        return `:hourglass: ${action} failed: the wallet service ${why}. Nothing was changed; try again in a minute.`;
      }
      case 'unknown_outcome':
        return `:warning: ${action}: the wallet service did not confirm the result, so it may or may not have happened. It will be checked against the transaction list; do not retry by hand.`;
      case 'validation':
        // Our input: the client's message says what was wrong. Their answer: its shape is for the log, not for people.
        return (err as WalletValidationError).source === 'response'
          ? `:warning: ${action} failed: the wallet service answered in a form this app does not understand. Nothing was changed; the details are in the log for the operators.`
          : `:warning: ${action} failed: ${outside(secrets.scrub(err.message), 500)}`;
    }
  }
  return `:warning: ${action} failed because of an internal error. Nothing was changed. The error was logged for the operators.`;
}
