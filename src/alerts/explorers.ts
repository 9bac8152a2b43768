/**
 * Block-explorer links for a transaction hash. The service's own transaction list gives a
 * `transactionHashUrl`, preferred when we have it; otherwise the link is derived from the
 * network (and, for BTC/LTC, the currency), on main or test networks.
 */
import { addressFamily } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup } from '../wallet/enums.js';

export type ExplorerNet = 'mainnet' | 'testnet';

const EVM_AND_TRON: Record<ExplorerNet, Readonly<Record<string, string>>> = {
  mainnet: {
    BSC: 'https://bscscan.com/tx/',
    ETH: 'https://etherscan.io/tx/',
    POLYGON: 'https://polygonscan.com/tx/',
    CELO: 'https://celoscan.io/tx/',
    ARBITRUM: 'https://arbiscan.io/tx/',
    AVALANCHE: 'https://snowtrace.io/tx/',
    HECOCHAIN: 'https://hecoinfo.com/tx/',
    TRON: 'https://tronscan.org/#/transaction/',
  },
  testnet: {
    BSC: 'https://testnet.bscscan.com/tx/',
    ETH: 'https://sepolia.etherscan.io/tx/',
    POLYGON: 'https://amoy.polygonscan.com/tx/',
    CELO: 'https://alfajores.celoscan.io/tx/',
    ARBITRUM: 'https://sepolia.arbiscan.io/tx/',
    AVALANCHE: 'https://testnet.snowtrace.io/tx/',
    HECOCHAIN: 'https://testnet.hecoinfo.com/tx/',
    TRON: 'https://nile.tronscan.org/#/transaction/',
  },
};

const UTXO: Record<ExplorerNet, { btc: string; ltc: string }> = {
  mainnet: { btc: 'https://mempool.space/tx/', ltc: 'https://litecoinspace.org/tx/' },
  testnet: { btc: 'https://mempool.space/testnet/tx/', ltc: 'https://litecoinspace.org/testnet/tx/' },
};

export function explorerTxUrl(hash: string | undefined, currency: string | undefined, network: string | undefined, net: ExplorerNet = 'mainnet'): string | undefined {
  if (!hash || !/^[0-9A-Za-z]+$/.test(hash)) return undefined;
  const n = lookup(NETWORKS, network);
  const c = lookup(CURRENCIES, currency);
  if (c && n) {
    const family = addressFamily(c, n);
    if (family === 'btc' || family === 'ltc') return UTXO[net][family] + hash;
  } else if (c && (c.name === 'BTC' || c.name === 'LTC')) {
    return UTXO[net][c.name === 'BTC' ? 'btc' : 'ltc'] + hash;
  }
  const base = n ? EVM_AND_TRON[net][n.name] : undefined;
  return base ? base + hash : undefined;
}
