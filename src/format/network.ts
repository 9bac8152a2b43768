/**
 * How people name the wallet service's networks: the token standard an exchange shows beside
 * a deposit address ("USDT on BSC (BEP-20)"), so a payer picks the matching network and
 * nothing is sent on the wrong chain.
 */
const STANDARDS: Readonly<Record<string, string>> = {
  BSC: 'BEP-20',
  ETH: 'ERC-20',
  TRON: 'TRC-20',
  POLYGON: 'Polygon PoS',
  CELO: 'Celo',
  ARBITRUM: 'Arbitrum One',
  AVALANCHE: 'Avalanche C-Chain',
  HECOCHAIN: 'HECO, HRC-20',
};

/** "BEP-20" for BSC; undefined for a network we have no common name for. */
export function networkStandard(network: string): string | undefined {
  return STANDARDS[network.trim().toUpperCase()];
}

/** "BSC (BEP-20)", or the name alone. */
export function networkWithStandard(network: string): string {
  const std = networkStandard(network);
  return std ? `${network} (${std})` : network;
}

/** The warning every exchange shows beside a deposit address. */
export function depositWarning(currency: string, network: string): string {
  return `Send only ${currency} on ${networkWithStandard(network)}; anything else may be lost.`;
}
