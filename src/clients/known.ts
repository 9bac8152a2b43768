/**
 * What the app knows of the merchant's clients (the e-mails whose generated wallets funds leave
 * from): the addresses generated through it (`/address`), kept for good, and what its other
 * records show (a confirmed deposit to the client, a withdrawal from the client the service
 * completed).
 *
 * Why it matters: the wallet service pays only from a client's generated wallet, and has no
 * call that says whether a client exists (wallet-service.md: generating an address CREATES
 * the client, the withdrawal is the only check). So a client the app has never seen is
 * flagged when the request is made ("New client: no address or transaction on record"), for
 * the requester and approvers to check the e-mail before anyone approves; the sandbox refuses
 * exactly such a client at the send ("Unknown merchant client"), and every client the sandbox
 * refuses is one the app flags (it has had no address generated, so no deposit and no
 * completed withdrawal either).
 */
import { ALERT_COLLECTIONS } from '../alerts/types.js';
import { collection } from '../store/collection.js';
import type { Reads, Store } from '../store/index.js';

/** An address the wallet service generated for a client through this app. */
export interface ClientAddress {
  /** As typed; compared case-insensitively (the service treats e-mails so). */
  email: string;
  currency: string;
  network: string;
  address: string;
  /** When it was first generated through the app (ISO). */
  at: string;
  /** Who asked (a Slack user id). */
  by: string;
}

/** The persisted name must never change: existing data directories are read by it. */
export const CLIENT_ADDRESSES = collection<ClientAddress>('client_addresses');

const lower = (email: string) => email.trim().toLowerCase();
const addressId = (a: Pick<ClientAddress, 'email' | 'currency' | 'network'>) =>
  `${lower(a.email)}|${a.currency}|${a.network}`;

/** Remembers an address generated through the app (the first time only: the service always gives the same one). */
export async function rememberAddress(store: Store, a: ClientAddress): Promise<void> {
  if (store.get(CLIENT_ADDRESSES, addressId(a))?.address === a.address) return;
  await store.commit((tx) => {
    const id = addressId(a);
    if (tx.get(CLIENT_ADDRESSES, id)?.address !== a.address) tx.put(CLIENT_ADDRESSES, id, a);
  });
}

/** The client's addresses generated through the app. */
export function addressesOf(read: Reads, email: string): ClientAddress[] {
  const wanted = lower(email);
  return read.all(CLIENT_ADDRESSES).filter((a) => lower(a.email) === wanted);
}

/** What the app's records show of a client, or undefined: never seen. */
export type ClientRecord = 'address' | 'deposit' | 'withdrawal';

/**
 * Whether the app has seen the client: an address generated through it, a deposit to it the
 * service confirmed, or a withdrawal from it the service completed (`completedFrom`, the
 * withdrawals domain's own records, passed in so this module does not read them).
 */
export function clientOnRecord(read: Reads, email: string, completedFrom: boolean): ClientRecord | undefined {
  if (addressesOf(read, email).length) return 'address';
  if (completedFrom) return 'withdrawal';
  const wanted = lower(email);
  const deposit = read
    .all(ALERT_COLLECTIONS.alerts)
    .some((a) => a.kind === 'deposit' && a.verification.state === 'confirmed' && lower(a.clientEmail ?? '') === wanted);
  return deposit ? 'deposit' : undefined;
}
