/**
 * Block-explorer links for transactions and addresses, derived from the NETWORK alone on main
 * or test networks: every asset on a network, BTC on BSC included, is a token of that chain
 * and lives on its explorer. The service's own URLs, where it gives them (transaction
 * records), are preferred; these fill in where it does not.
 */
import { NETWORKS, lookup } from './enums.js';

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

/**
 * The explorer of a network (a name, alias or code); undefined for one we do not know.
 * `currency` is not consulted: callers pass it so every call reads alike, and so a future
 * network that is one asset's own chain would not change them.
 */
export function explorerFor(_currency: unknown, network: unknown, net: ExplorerNet = 'mainnet'): Explorer | undefined {
  const n = lookup(NETWORKS, network);
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
