/**
 * Which kind of address a list entry is. A sanctions list is read from outside: an entry that is no
 * address of a known family (an error page's word, a truncated line) means the download is not the
 * list, and the whole read is refused rather than taken for a shorter list.
 */
import bs58check from 'bs58check';

export type ListedFamily = 'evm' | 'tron' | 'base58check' | 'bech32' | 'cashaddr' | 'xrp' | 'monero' | 'hex-key';

const EVM = /^0x[0-9a-fA-F]{40}$/;
const BECH32 = /^(bc|tb|ltc|bcrt)1[02-9ac-hj-np-z]{11,87}$/;
const CASHADDR = /^(bitcoincash:)?[qp][02-9ac-hj-np-z]{41}$/;
// XRP uses its own base58 alphabet (bs58check cannot check it): its shape only.
const XRP = /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/;
const MONERO = /^[48][1-9A-HJ-NP-Za-km-z]{94}([1-9A-HJ-NP-Za-km-z]{11})?$/;
// The upstream XMR file also lists 64-hex keys.
const HEX_KEY = /^[0-9a-f]{64}$/;

function base58checkVersion(a: string): number | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,36}$/.test(a)) return undefined;
  try {
    const payload = bs58check.decode(a);
    return payload.length >= 21 && payload.length <= 22 ? payload[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The family of a list entry, or undefined when it is none we know. */
export function listedFamily(address: string): ListedFamily | undefined {
  if (EVM.test(address)) return 'evm';
  const version = base58checkVersion(address);
  if (version !== undefined) return version === 0x41 && address.startsWith('T') ? 'tron' : 'base58check';
  if (BECH32.test(address)) return 'bech32';
  if (CASHADDR.test(address)) return 'cashaddr';
  if (XRP.test(address)) return 'xrp';
  if (MONERO.test(address)) return 'monero';
  if (HEX_KEY.test(address)) return 'hex-key';
  return undefined;
}
