/**
 * The sandbox's whole world, in memory: merchants, their clients and generated addresses,
 * balances, the transaction list and used withdrawal references. Everything is keyed by
 * lower-cased e-mail: the service treats e-mail addresses case-insensitively.
 */
import { createHash } from 'node:crypto';
import { addressFamily, deriveAddress } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';
import { Money } from './money.js';
import { addressUrl, externalAddress, txHash, txUrl } from './chain.js';

export type KybName = 'UnVerified' | 'Initiated' | 'InProgress' | 'Approved' | 'Rejected';
export type Role = 'Merchant' | 'Admin';

export interface Merchant {
  email: string;
  password: string;
  apiKey: string;
  publicKey: string;
  kyb: KybName;
  role: Role;
  businessName: string;
  webhookUrl?: string;
}

export interface Client {
  /** Stable UUID derived from merchant + e-mail. */
  id: string;
  email: string;
  /** `${currencyCode}:${networkCode}` -> address. */
  addresses: Map<string, string>;
}

export interface AddressOwner {
  merchantEmail: string;
  clientEmail: string;
  currency: CurrencyMember;
  network: EnumMember;
  address: string;
}

/**
 * A transaction as the sandbox keeps it. Field names follow the spec's transaction record;
 * `transactionTimeStamp` is always Unix milliseconds here (the wire converts it to the
 * configured unit), `amount` is exact decimal text, `currency`/`network` are names.
 */
export interface TransactionRecord {
  id: string;
  merchantEmail: string;
  clientEmail: string | null;
  /** The spec's SUCCESSFUL or FAILED; the public SDK's PENDING and INITIATED (not final) too. */
  transactionStatus: 'SUCCESSFUL' | 'FAILED' | 'PENDING' | 'INITIATED';
  transactionType: 'Deposit' | 'Withdrawal';
  transactionHash: string;
  transactionHashUrl: string;
  toAddress: string;
  fromAddress: string;
  toAddressUrl: string;
  fromAddressUrl: string;
  amount: string;
  /** Fee charged (withdrawals), exact decimal text. */
  charge: string;
  network: string;
  currency: string;
  transactionTimeStamp: number;
  reference: string;
  createdAt: string;
}

const lower = (s: string) => s.trim().toLowerCase();

/** EVM addresses compare case-insensitively (checksum casing); base58 (TRON) is left alone. */
export function addressKey(address: string): string {
  const a = address.trim();
  return /^0x/i.test(a) ? a.toLowerCase() : a;
}

/** ISO 8601 with fractional seconds and no zone offset, as the spec shows createdAt. */
export function createdAtText(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '');
}

function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const assetKey = (c: CurrencyMember, n: EnumMember) => `${c.code}:${n.code}`;

export class SandboxState {
  readonly merchants = new Map<string, Merchant>();
  private readonly clients = new Map<string, Map<string, Client>>();
  private readonly addressIndex = new Map<string, AddressOwner>();
  private readonly balances = new Map<string, Money>();
  private readonly references = new Map<string, Set<string>>();
  private txs: TransactionRecord[] = [];
  private txSeq = 0;

  constructor(readonly defaultMerchantEmail: string) {}

  addMerchant(m: Merchant): void {
    this.merchants.set(lower(m.email), { ...m, email: m.email.trim() });
  }

  merchant(email: string): Merchant | undefined {
    return this.merchants.get(lower(email));
  }

  merchantByApiKey(apiKey: string): Merchant | undefined {
    for (const m of this.merchants.values()) if (m.apiKey === apiKey) return m;
    return undefined;
  }

  client(merchantEmail: string, clientEmail: string): Client | undefined {
    return this.clients.get(lower(merchantEmail))?.get(lower(clientEmail));
  }

  ensureClient(merchantEmail: string, clientEmail: string): Client {
    const mk = lower(merchantEmail);
    let byEmail = this.clients.get(mk);
    if (!byEmail) {
      byEmail = new Map();
      this.clients.set(mk, byEmail);
    }
    let c = byEmail.get(lower(clientEmail));
    if (!c) {
      c = { id: stableUuid(`client:${mk}:${lower(clientEmail)}`), email: clientEmail.trim(), addresses: new Map() };
      byEmail.set(lower(clientEmail), c);
    }
    return c;
  }

  /** Same merchant + client + currency + network always gives the same address. */
  ensureAddress(merchantEmail: string, clientEmail: string, currency: CurrencyMember, network: EnumMember): string {
    const client = this.ensureClient(merchantEmail, clientEmail);
    const key = assetKey(currency, network);
    let address = client.addresses.get(key);
    if (!address) {
      const seed = `sandbox:${lower(merchantEmail)}:${lower(clientEmail)}:${currency.code}:${network.code}`;
      address = deriveAddress(addressFamily(network), seed);
      client.addresses.set(key, address);
      this.addressIndex.set(addressKey(address), {
        merchantEmail: this.merchant(merchantEmail)?.email ?? merchantEmail,
        clientEmail: client.email,
        currency,
        network,
        address,
      });
    }
    return address;
  }

  addressOwner(address: string): AddressOwner | undefined {
    return this.addressIndex.get(addressKey(address));
  }

  /** A client "exists" once at least one address was generated for it. */
  hasGeneratedAddress(merchantEmail: string, clientEmail: string): boolean {
    return (this.client(merchantEmail, clientEmail)?.addresses.size ?? 0) > 0;
  }

  /** The merchant a client belongs to: the default merchant first, then any other. */
  merchantOfClient(clientEmail: string): Merchant | undefined {
    const def = this.merchant(this.defaultMerchantEmail);
    if (def && this.client(def.email, clientEmail)) return def;
    for (const m of this.merchants.values()) if (this.client(m.email, clientEmail)) return m;
    return undefined;
  }

  private balanceKey(merchantEmail: string, clientEmail: string, c: CurrencyMember, n: EnumMember): string {
    return `${lower(merchantEmail)}|${lower(clientEmail)}|${assetKey(c, n)}`;
  }

  balance(merchantEmail: string, clientEmail: string, c: CurrencyMember, n: EnumMember): Money {
    return this.balances.get(this.balanceKey(merchantEmail, clientEmail, c, n)) ?? new Money(0);
  }

  setBalance(merchantEmail: string, clientEmail: string, c: CurrencyMember, n: EnumMember, amount: Money): void {
    this.balances.set(this.balanceKey(merchantEmail, clientEmail, c, n), new Money(amount));
  }

  /** Every balance of a merchant's clients, summed per currency and network (its origin accounts). */
  originBalances(merchantEmail: string): Array<{ currency: number; network: number; balance: Money }> {
    const prefix = `${lower(merchantEmail)}|`;
    const sums = new Map<string, Money>();
    for (const [key, amount] of this.balances) {
      if (!key.startsWith(prefix)) continue;
      const asset = key.slice(key.lastIndexOf('|') + 1);
      sums.set(asset, (sums.get(asset) ?? new Money(0)).plus(amount));
    }
    return [...sums].map(([asset, balance]) => {
      const [currency, network] = asset.split(':').map(Number);
      return { currency: currency!, network: network!, balance };
    });
  }

  credit(merchantEmail: string, clientEmail: string, c: CurrencyMember, n: EnumMember, amount: Money): void {
    this.setBalance(merchantEmail, clientEmail, c, n, this.balance(merchantEmail, clientEmail, c, n).plus(amount));
  }

  referenceUsed(merchantEmail: string, reference: string): boolean {
    return this.references.get(lower(merchantEmail))?.has(reference) ?? false;
  }

  useReference(merchantEmail: string, reference: string): void {
    const mk = lower(merchantEmail);
    let set = this.references.get(mk);
    if (!set) {
      set = new Set();
      this.references.set(mk, set);
    }
    set.add(reference);
  }

  nextTxId(): string {
    this.txSeq += 1;
    return `tx_${String(this.txSeq).padStart(6, '0')}`;
  }

  addTransaction(tx: TransactionRecord): TransactionRecord {
    this.txs.push(tx);
    if (tx.transactionType === 'Withdrawal') this.useReference(tx.merchantEmail, tx.reference);
    return tx;
  }

  /** Insertion order; the listing sorts. */
  transactions(): readonly TransactionRecord[] {
    return this.txs;
  }

  replaceTransactions(records: TransactionRecord[]): void {
    this.txs = [];
    this.references.clear();
    for (const r of records) this.addTransaction(r);
  }

  /**
   * Complete a partial record with consistent defaults (for resetTransactions): index i
   * gets a timestamp i minutes before `nowMs`, so index 0 is the most recent.
   */
  completeRecord(partial: Partial<TransactionRecord>, index: number, nowMs: number): TransactionRecord {
    const currency = lookup(CURRENCIES, partial.currency ?? 'USDT') ?? CURRENCIES[3]!;
    const network = lookup(NETWORKS, partial.network ?? 'BSC') ?? NETWORKS[0]!;
    const family = addressFamily(network);
    const id = partial.id ?? this.nextTxId();
    const type = partial.transactionType ?? 'Deposit';
    const clientEmail =
      partial.clientEmail === undefined ? `client${(index % 5) + 1}@example.test` : partial.clientEmail;
    const merchantEmail =
      partial.merchantEmail ?? this.merchant(this.defaultMerchantEmail)?.email ?? this.defaultMerchantEmail;
    const own = clientEmail
      ? this.ensureAddress(merchantEmail, clientEmail, currency, network)
      : externalAddress(network, `own:${id}`);
    const other = externalAddress(network, `other:${id}`);
    const toAddress = partial.toAddress ?? (type === 'Deposit' ? own : other);
    const fromAddress = partial.fromAddress ?? (type === 'Deposit' ? other : own);
    const hash = partial.transactionHash ?? txHash(family, `${merchantEmail}:${id}`);
    const ts = partial.transactionTimeStamp ?? nowMs - index * 60_000;
    return {
      id,
      merchantEmail,
      clientEmail,
      transactionStatus: partial.transactionStatus ?? 'SUCCESSFUL',
      transactionType: type,
      transactionHash: hash,
      transactionHashUrl: partial.transactionHashUrl ?? txUrl(currency, network, hash),
      toAddress,
      fromAddress,
      toAddressUrl: partial.toAddressUrl ?? addressUrl(currency, network, toAddress),
      fromAddressUrl: partial.fromAddressUrl ?? addressUrl(currency, network, fromAddress),
      amount: partial.amount ?? String(index + 1),
      charge: partial.charge ?? '0',
      network: network.name,
      currency: currency.name,
      transactionTimeStamp: ts,
      reference: partial.reference ?? `sandbox-ref-${String(index + 1).padStart(4, '0')}`,
      createdAt: partial.createdAt ?? createdAtText(ts),
    };
  }
}
