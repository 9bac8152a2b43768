/**
 * Realistic, deterministic seed data: a handful of the sandbox merchant's clients with
 * generated addresses and balances, and about sixty transactions spread over the six weeks
 * before now() across several currencies and networks, both types and both statuses.
 * Everything comes from a fixed-seed PRNG, so two sandboxes started at the same now()
 * hold identical data.
 */
import { addressFamily } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';
import { Money, formatMoney, withdrawalFee } from './money.js';
import { createRng, type Rng } from './prng.js';
import { addressUrl, externalAddress, txHash, txUrl } from './chain.js';
import { createdAtText, type SandboxState } from './state.js';

export const SEED_CLIENTS = [
  'ada.okafor@acme-payments.test',
  'bola@kanzi-market.test',
  'chen.li@lotus-trading.test',
  'dmitri@northwind-ops.test',
  'eve.martin@harbor-goods.test',
] as const;

interface Asset {
  currency: CurrencyMember;
  network: EnumMember;
  /** Largest whole part of a generated amount, and how many decimals it carries. */
  maxWhole: number;
  decimals: number;
}

const asset = (c: string, n: string, maxWhole: number, decimals: number): Asset => ({
  currency: lookup(CURRENCIES, c)!,
  network: lookup(NETWORKS, n)!,
  maxWhole,
  decimals,
});

const ASSETS: readonly Asset[] = [
  asset('USDT', 'BSC', 25_000, 2),
  asset('USDT', 'TRON', 15_000, 2),
  asset('USDC', 'POLYGON', 10_000, 2),
  asset('ETH', 'ETH', 4, 6),
  asset('BNB', 'BSC', 20, 4),
  asset('BTC', 'BSC', 0, 8),
];

const SEED = 0x5eed_2024;
const SIX_WEEKS_MS = 42 * 24 * 3600_000;
export const SEED_TRANSACTIONS = 60;

function amount(rng: Rng, a: Asset): string {
  const frac = a.decimals
    ? String(rng.int(0, 10 ** Math.min(a.decimals, 8) - 1)).padStart(Math.min(a.decimals, 8), '0')
    : '';
  const d = new Money(`${rng.int(0, a.maxWhole)}${frac ? `.${frac}` : ''}`);
  return d.isZero() ? '1' : formatMoney(d);
}

export function seedSandbox(state: SandboxState, merchantEmail: string, nowMs: number): void {
  const rng = createRng(SEED);
  const holdings = new Map<string, Asset[]>();
  for (const client of SEED_CLIENTS) {
    const own = ASSETS.filter((_, i) => i < 2 || rng.chance(0.6));
    holdings.set(client, own);
    for (const a of own) {
      state.ensureAddress(merchantEmail, client, a.currency, a.network);
      const whole = Math.max(1, a.maxWhole) * rng.int(2, 6);
      state.setBalance(
        merchantEmail,
        client,
        a.currency,
        a.network,
        new Money(`${whole}.${String(rng.int(0, 99)).padStart(2, '0')}`),
      );
    }
  }

  for (let i = 0; i < SEED_TRANSACTIONS; i += 1) {
    const client = rng.pick(SEED_CLIENTS);
    const a = rng.pick(holdings.get(client)!);
    const { currency, network } = a;
    const deposit = rng.chance(0.65);
    const successful = rng.chance(0.88);
    const ts = nowMs - rng.int(60_000, SIX_WEEKS_MS);
    const id = state.nextTxId();
    const own = state.ensureAddress(merchantEmail, client, currency, network);
    const other = externalAddress(network, `seed:${i}`);
    const to = deposit ? own : other;
    const from = deposit ? other : own;
    const hash = txHash(addressFamily(network), `seed:${merchantEmail}:${i}`);
    state.addTransaction({
      id,
      merchantEmail,
      clientEmail: client,
      transactionStatus: successful ? 'SUCCESSFUL' : 'FAILED',
      transactionType: deposit ? 'Deposit' : 'Withdrawal',
      transactionHash: hash,
      transactionHashUrl: txUrl(currency, network, hash),
      toAddress: to,
      fromAddress: from,
      toAddressUrl: addressUrl(currency, network, to),
      fromAddressUrl: addressUrl(currency, network, from),
      amount: amount(rng, a),
      charge: deposit ? '0' : withdrawalFee(currency),
      network: network.name,
      currency: currency.name,
      transactionTimeStamp: ts,
      reference: deposit ? `DEP-${hash.replace(/^0x/, '').slice(0, 16).toUpperCase()}` : rng.uuid(),
      createdAt: createdAtText(ts),
    });
  }
}
