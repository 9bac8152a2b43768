/**
 * Block-explorer links for transactions and addresses, derived from the network (and, for
 * BTC/LTC, the currency) on main or test networks. The service's own URLs, where it gives
 * them (transaction records), are preferred; these fill in where it does not.
 */
import { addressFamily, type AddressFamily } from './addresses.js';
import { CURRENCIES, NETWORKS, lookup } from './enums.js';

export type ExplorerNet = 'mainnet' | 'testnet';

/** URL prefixes: append a transaction hash or an address. */
export interface Explorer {
  tx: string;
  address: string;
}

const evm = (origin: string): Explorer => ({ tx: `${origin}/tx/`, address: `${origin}/address/` });
const tron = (origin: string): Explorer => ({ tx: `${origin}/#/transaction/`, address: `${origin}/#/address/` });

const BY_NETWORK: Record<ExplorerNet, Readonly<Record<string, Explorer>>> = {
  mainnet: {
    BSC: evm('https://bscscan.com'),
    ETH: evm('https://etherscan.io'),
    POLYGON: evm('https://polygonscan.com'),
    CELO: evm('https://celoscan.io'),
    ARBITRUM: evm('https://arbiscan.io'),
    AVALANCHE: evm('https://snowtrace.io'),
    HECOCHAIN: evm('https://hecoinfo.com'),
    TRON: tron('https://tronscan.org'),
  },
  testnet: {
    BSC: evm('https://testnet.bscscan.com'),
    ETH: evm('https://sepolia.etherscan.io'),
    POLYGON: evm('https://amoy.polygonscan.com'),
    CELO: evm('https://alfajores.celoscan.io'),
    ARBITRUM: evm('https://sepolia.arbiscan.io'),
    AVALANCHE: evm('https://testnet.snowtrace.io'),
    HECOCHAIN: evm('https://testnet.hecoinfo.com'),
    TRON: tron('https://nile.tronscan.org'),
  },
};

const UTXO: Record<ExplorerNet, Record<'btc' | 'ltc', Explorer>> = {
  mainnet: { btc: evm('https://mempool.space'), ltc: evm('https://litecoinspace.org') },
  testnet: { btc: evm('https://mempool.space/testnet'), ltc: evm('https://litecoinspace.org/testnet') },
};

export function explorerFor(currency: unknown, network: unknown, net: ExplorerNet = 'mainnet'): Explorer | undefined {
  const c = lookup(CURRENCIES, currency);
  const n = lookup(NETWORKS, network);
  const family: AddressFamily | undefined =
    c && n ? addressFamily(c, n) : c?.name === 'BTC' ? 'btc' : c?.name === 'LTC' ? 'ltc' : undefined;
  if (family === 'btc' || family === 'ltc') return UTXO[net][family];
  return n ? BY_NETWORK[net][n.name] : undefined;
}

const SAFE = /^[0-9A-Za-z]+$/;

export function explorerTxUrl(
  hash: string | undefined,
  currency: unknown,
  network: unknown,
  net: ExplorerNet = 'mainnet',
): string | undefined {
  if (!hash || !SAFE.test(hash)) return undefined;
  const e = explorerFor(currency, network, net);
  return e ? e.tx + hash : undefined;
}

export function explorerAddressUrl(
  address: string | undefined,
  currency: unknown,
  network: unknown,
  net: ExplorerNet = 'mainnet',
): string | undefined {
  if (!address || !SAFE.test(address)) return undefined;
  const e = explorerFor(currency, network, net);
  return e ? e.address + address : undefined;
}
