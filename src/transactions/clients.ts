/**
 * Whose transaction is it? The wallet service's transaction list names no client: the app
 * knows one only through what it saw itself, so every answer here is "known", never guessed.
 *
 * - addresses generated through the app (`/address`), kept by src/clients/known.ts;
 * - deposit notifications the wallet's own history confirmed (a forged one must not name the
 *   client of a real transaction): their hash, and the address that received the funds;
 * - the app's own withdrawal requests: their transaction hash, their merchant reference (the
 *   list's `reference` of a withdrawal), and, once a list record of theirs has been read, the
 *   wallet the money left from (the client's).
 *
 * Addresses are compared in lower case: EVM hex is case-insensitive (its capitals are only a
 * checksum), and two TRON addresses differing only in case are not both real.
 */
import { ALERT_COLLECTIONS } from '../alerts/types.js';
import { CLIENT_ADDRESSES } from '../clients/known.js';
import type { Store } from '../store/index.js';
import type { TransactionRecord } from '../wallet/schemas.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';

const norm = (s: string) => s.trim().toLowerCase();

export interface ClientBook {
  /** The client of a record, where the app knows it; undefined otherwise. */
  clientOf(r: TransactionRecord): string | undefined;
  /** Every address the app knows as this client's (lower case). */
  addressesOf(clientEmail: string): string[];
  /** Transaction hashes of this client's own withdrawals (to find the wallet they left from). */
  hashesOf(clientEmail: string): string[];
  /** Learns from records just read: the wallet a known client's withdrawal left from. */
  learn(records: readonly TransactionRecord[]): void;
}

/** What the app knows of clients now (read once: build it per command or export). */
export function clientBook(store: Pick<Store, 'find' | 'all'>, requests: readonly WithdrawalRequest[]): ClientBook {
  const byHash = new Map<string, string>();
  const byAddress = new Map<string, string>();
  const byReference = new Map<string, string>();
  for (const g of store.all(CLIENT_ADDRESSES)) byAddress.set(norm(g.address), g.email);
  for (const a of store.find(
    ALERT_COLLECTIONS.alerts,
    (x) => Boolean(x.clientEmail) && (x.source !== 'webhook' || x.verification.state === 'confirmed'),
  )) {
    if (a.hash) byHash.set(norm(a.hash), a.clientEmail!);
    const received = a.kind === 'deposit' ? (a.receiveAddress ?? a.receiverAddress) : undefined;
    if (received) byAddress.set(norm(received), a.clientEmail!);
  }
  for (const w of requests) {
    byReference.set(w.merchantReference, w.clientEmail);
    if (w.result?.transactionHash) byHash.set(norm(w.result.transactionHash), w.clientEmail);
  }
  const book: ClientBook = {
    clientOf(r) {
      if (r.type !== 'deposit' && r.reference && byReference.has(r.reference)) return byReference.get(r.reference);
      if (r.hash && byHash.has(norm(r.hash))) return byHash.get(norm(r.hash));
      // A deposit lands on the client's address; a withdrawal leaves from it.
      const own = r.type === 'deposit' ? r.toAddress : r.type === 'withdrawal' ? r.fromAddress : undefined;
      return own ? byAddress.get(norm(own)) : undefined;
    },
    addressesOf(clientEmail) {
      const c = norm(clientEmail);
      return [...byAddress.entries()].filter(([, who]) => norm(who) === c).map(([addr]) => addr);
    },
    hashesOf(clientEmail) {
      const c = norm(clientEmail);
      return requests
        .filter((w) => norm(w.clientEmail) === c && w.result?.transactionHash)
        .map((w) => w.result!.transactionHash!);
    },
    learn(records) {
      for (const r of records) {
        if (r.type !== 'withdrawal' || !r.fromAddress) continue;
        const who = (r.reference && byReference.get(r.reference)) || (r.hash && byHash.get(norm(r.hash)));
        if (who && !byAddress.has(norm(r.fromAddress))) byAddress.set(norm(r.fromAddress), who);
      }
    },
  };
  return book;
}
