/**
 * What a blockchain would give the sandbox: transaction hashes in each chain's format,
 * outside counterparties' addresses, and testnet block-explorer links.
 */
import { createHash } from 'node:crypto';
import { addressFamily, deriveAddress, type AddressFamily } from '../wallet/addresses.js';
import type { CurrencyMember, EnumMember } from '../wallet/enums.js';

/** EVM hashes are 0x + 64 hex; TRON, Bitcoin and Litecoin write the 64 hex digits bare. */
export function txHash(family: AddressFamily, seed: string): string {
  const hex = createHash('sha256').update(`tx:${seed}`).digest('hex');
  return family === 'evm' ? `0x${hex}` : hex;
}

/** An address that belongs to nobody in the sandbox (a deposit's sender, a withdrawal's destination). */
export function externalAddress(currency: CurrencyMember, network: EnumMember, seed: string): string {
  return deriveAddress(addressFamily(currency, network), `external:${seed}`);
}

interface Explorer {
  tx: string;
  address: string;
}

const byNetwork: Readonly<Record<string, Explorer>> = {
  BSC: { tx: 'https://testnet.bscscan.com/tx/', address: 'https://testnet.bscscan.com/address/' },
  ETH: { tx: 'https://sepolia.etherscan.io/tx/', address: 'https://sepolia.etherscan.io/address/' },
  POLYGON: { tx: 'https://amoy.polygonscan.com/tx/', address: 'https://amoy.polygonscan.com/address/' },
  CELO: { tx: 'https://alfajores.celoscan.io/tx/', address: 'https://alfajores.celoscan.io/address/' },
  ARBITRUM: { tx: 'https://sepolia.arbiscan.io/tx/', address: 'https://sepolia.arbiscan.io/address/' },
  AVALANCHE: { tx: 'https://testnet.snowtrace.io/tx/', address: 'https://testnet.snowtrace.io/address/' },
  HECOCHAIN: { tx: 'https://testnet.hecoinfo.com/tx/', address: 'https://testnet.hecoinfo.com/address/' },
  TRON: { tx: 'https://nile.tronscan.org/#/transaction/', address: 'https://nile.tronscan.org/#/address/' },
};
const btc: Explorer = { tx: 'https://mempool.space/testnet/tx/', address: 'https://mempool.space/testnet/address/' };
const ltc: Explorer = { tx: 'https://litecoinspace.org/testnet/tx/', address: 'https://litecoinspace.org/testnet/address/' };

function explorer(currency: CurrencyMember, network: EnumMember): Explorer {
  const family = addressFamily(currency, network);
  if (family === 'btc') return btc;
  if (family === 'ltc') return ltc;
  return byNetwork[network.name] ?? byNetwork.BSC!;
}

export function txUrl(currency: CurrencyMember, network: EnumMember, hash: string): string {
  return explorer(currency, network).tx + hash;
}

export function addressUrl(currency: CurrencyMember, network: EnumMember, address: string): string {
  return explorer(currency, network).address + address;
}
