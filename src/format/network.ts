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
 * Coins whose own chain is not one of the service's networks: on any network of the service
 * they are tokens (BTC on BSC is a BEP-20 token), and a payer who sends the coin over its own
 * chain loses it. Named so the warning can say so.
 */
const OWN_CHAINS: Readonly<Record<string, string>> = { BTC: 'Bitcoin', LTC: 'Litecoin' };

/** "BTC on BSC is a BEP-20 token: …", or undefined when the currency is at home on the network's format. */
export function tokenNote(currency: string, network: string): string | undefined {
  const own = OWN_CHAINS[currency.trim().toUpperCase()];
  if (!own) return undefined;
  const std = networkStandard(network);
  return `${currency} on ${network} is ${std ? `a ${std} token` : 'a token'} at a ${network} address: ${currency} sent over the ${own} network itself is lost.`;
}
