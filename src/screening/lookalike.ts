/**
 * Address poisoning: an attacker sends dust from an address that shares the first and last
 * characters of one the team pays, so that a copy from the transaction history looks right at a
 * glance. A destination that matches a known address in its first 4 and last 4 characters
 * (after any `0x`) but is another address is such a look-alike. Pure.
 */

/** An address the team knows by name: an allowlist entry, or a destination paid recently. */
export interface KnownAddress {
  address: string;
  network: string;
  /** The words shown: the allowlist label, or "a destination paid on 3 Nov 2026". */
  label: string;
}

const EDGE = 4;

/** The part compared: without `0x`, lowercased when hex (checksum casing means nothing), else as written. */
function body(address: string): string {
  const a = address.trim();
  return /^0x[0-9a-fA-F]+$/.test(a) ? a.slice(2).toLowerCase() : a;
}

/** Whether `a` and `b` are different addresses with the same first and last four characters. */
export function looksAlike(a: string, b: string): boolean {
  const x = body(a);
  const y = body(b);
  if (x === y || x.length < EDGE * 2 || y.length < EDGE * 2) return false;
  return x.slice(0, EDGE) === y.slice(0, EDGE) && x.slice(-EDGE) === y.slice(-EDGE);
}

/**
 * The known address `destination` imitates on its network, if any. A destination that is itself
 * a known address is no look-alike (the team pays it already).
 */
export function lookalikeOf(
  destination: string,
  network: string,
  known: readonly KnownAddress[],
): KnownAddress | undefined {
  // Compared within the address family, not the network: an EVM address is the same string on every EVM
  // chain, so a poisoner imitating the BSC desk on ETH is as dangerous as on BSC.
  const family = familyOf(destination, network);
  const mine = known.filter((k) => familyOf(k.address, k.network) === family);
  if (mine.some((k) => body(k.address) === body(destination))) return undefined;
  return mine.find((k) => looksAlike(k.address, destination));
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** `evm` for any EVM address, else the network itself (TRON, ...). */
const familyOf = (address: string, network: string) => (EVM_ADDRESS.test(address.trim()) ? 'evm' : network);

/** "0x1234…abcd": enough of an address to recognise it, as the warning shows it. */
export function shortAddress(address: string): string {
  const a = address.trim();
  const head = a.startsWith('0x') ? 2 + EDGE : EDGE;
  return a.length <= head + EDGE + 1 ? a : `${a.slice(0, head)}…${a.slice(-EDGE)}`;
}
