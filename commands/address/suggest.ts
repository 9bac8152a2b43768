/**
 * "Did you mean BSC?" for a mistyped or colloquial currency or network. Two sources: names
 * people commonly use for a member ("binance", "bep20", "tether"), and, failing that, the
 * member whose name or alias is fewest edits away (at most a third of the word's length).
 * Only ever a suggestion: nothing is accepted on a guess.
 */
import { CURRENCIES, NETWORKS, type EnumMember } from '../../src/wallet/enums.js';

const key = (s: string) =>
  s
    .trim()
    .toUpperCase()
    .replace(/[\s_.-]+/g, '');

const COLLOQUIAL = new Map<readonly EnumMember[], Readonly<Record<string, string>>>([
  [
    NETWORKS,
    {
      BINANCE: 'BSC',
      BNB: 'BSC',
      BNBCHAIN: 'BSC',
      BNBSMARTCHAIN: 'BSC',
      BINANCESMARTCHAIN: 'BSC',
      BEP20: 'BSC',
      ERC20: 'ETH',
      ETHEREUMMAINNET: 'ETH',
      TRC20: 'TRON',
      TRX: 'TRON',
      POLYGONPOS: 'POLYGON',
      POL: 'POLYGON',
      AVAX: 'AVALANCHE',
      CCHAIN: 'AVALANCHE',
      ARB: 'ARBITRUM',
      ARBITRUMONE: 'ARBITRUM',
      HRC20: 'HECOCHAIN',
    },
  ],
  [
    CURRENCIES,
    {
      TETHER: 'USDT',
      BITCOIN: 'BTC',
      LITECOIN: 'LTC',
      ETHER: 'ETH',
      ETHEREUM: 'ETH',
      USDCOIN: 'USDC',
      TRON: 'TRX',
      BINANCECOIN: 'BNB',
      BINANCEUSD: 'BUSD',
      TRUEUSD: 'TUSD',
    },
  ],
]);

/** Levenshtein distance: the number of single-letter edits from a to b. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The member's display name the typed word most likely meant, or undefined. */
export function closest(members: readonly EnumMember[], typed: string): string | undefined {
  const k = key(typed);
  if (!k) return undefined;
  const named = COLLOQUIAL.get(members)?.[k];
  if (named) return named;
  let best: { name: string; d: number } | undefined;
  for (const m of members) {
    for (const n of [m.name, ...m.aliases]) {
      const d = distance(k, key(n));
      if (!best || d < best.d) best = { name: m.name, d };
    }
  }
  return best && best.d <= Math.max(1, Math.floor(k.length / 3)) ? best.name : undefined;
}
