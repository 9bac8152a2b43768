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

/** The warning every exchange shows beside a deposit address (and, for BTC on BSC and the like, that it is a token). */
export function depositWarning(currency: string, network: string): string {
  const note = tokenNote(currency, network);
  return `Send only ${currency} on ${networkWithStandard(network)}; anything else may be lost.${note ? ` ${note}` : ''}`;
}

/**
 * Each network's own coin (what pays its fees). Any other currency on it is a token: USDT on
 * BSC, and also ETH or TRX on BSC. Read against enums.ts's NETWORKS and CURRENCIES; AVAX and
 * HT are not currencies of the service, so everything on AVALANCHE and HECOCHAIN is a token.
 */
const NATIVE: Readonly<Record<string, string>> = {
  BSC: 'BNB',
  ETH: 'ETH',
  POLYGON: 'MATIC',
  CELO: 'CELO',
  ARBITRUM: 'ETH',
  AVALANCHE: 'AVAX',
  HECOCHAIN: 'HT',
  TRON: 'TRX',
};

/**
 * Coins with a chain of their own: a payer who sends one over its own chain to a token address
 * on another network loses it, so the note says which chain not to use.
 */
const OWN_CHAINS: Readonly<Record<string, string>> = {
  BTC: 'Bitcoin',
  LTC: 'Litecoin',
  ETH: 'Ethereum',
  BNB: 'BNB Smart Chain',
  MATIC: 'Polygon',
  CELO: 'Celo',
  TRX: 'TRON',
};

/** "BTC on BSC is a BEP-20 token: …", or undefined when the currency is the network's own coin (or the network is unknown). */
export function tokenNote(currency: string, network: string): string | undefined {
  const cur = currency.trim().toUpperCase();
  const native = NATIVE[network.trim().toUpperCase()];
  if (!native || cur === native) return undefined;
  const std = networkStandard(network);
  const own = OWN_CHAINS[cur];
  const token = `${currency} on ${network} is ${std ? `a ${std} token` : 'a token'} at a ${network} address`;
  return own ? `${token}: ${currency} sent over the ${own} network itself is lost.` : `${token}.`;
}
