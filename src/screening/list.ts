/**
 * The sanctions list as data: parsed from any of the accepted formats, keyed so that an EVM
 * address matches whatever its checksum casing (hex is case-insensitive) while every other kind
 * (base58, bech32 with meaningful case, Monero...) matches exactly, and fingerprinted with a
 * sha256 over its sorted keys so the same addresses give the same digest whichever format or
 * file order they came in (the audit log names the list a decision was taken with by it).
 * Pure: loading is load.ts.
 */
import { createHash } from 'node:crypto';
import { listedFamily } from './address-format.js';

/** One sanctions list as judged: its addresses (by key) and where and when they came from. */
export interface SanctionsList {
  /** Where it was read from, in words for people (a URL, a file, "the bundled snapshot"). */
  source: string;
  /** The date of the data itself (the snapshot's, or the moment it was fetched when the source gives none). */
  date: string;
  /** The last moment it was read successfully from its source: its age runs from here. */
  fetchedAt: string;
  /** The per-asset files it was read from (ETH, XBT...), when it came in that layout: a later read must have them all. */
  assets?: string[];
  /** sha256 (hex) of its sorted keys, one per line. */
  sha256: string;
  count: number;
  addresses: ReadonlySet<string>;
}

/** A list as named in audit entries and on cards: everything but the addresses. */
export type ListRef = Omit<SanctionsList, 'addresses'>;

const EVM = /^0x[0-9a-fA-F]{40}$/;

/** How an address is compared: EVM hex lowercased, everything else exactly as written (trimmed). */
export function addressKey(address: string): string {
  const a = address.trim();
  return EVM.test(a) ? a.toLowerCase() : a;
}

/**
 * The addresses in one file's text: a JSON array of strings, or text with one address per line
 * (blank lines and `#` comments ignored, also after an address). Anything else is an error, so a
 * broken download is never taken for an empty list.
 */
export function parseAddresses(text: string, what: string): string[] {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new Error(`${what} is not valid JSON`);
    }
    if (!Array.isArray(parsed) || parsed.some((a) => typeof a !== 'string'))
      throw new Error(`${what} is not a JSON array of address strings`);
    return known((parsed as string[]).map((a) => a.trim()).filter(Boolean), what);
  }
  if (body.startsWith('<') || body.startsWith('{'))
    throw new Error(`${what} is neither a list of addresses nor a JSON array`);
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const a = line.replace(/#.*$/, '').trim();
    if (!a) continue;
    if (/\s/.test(a) || a.length > 128)
      throw new Error(`${what} has a line that is not an address: "${a.slice(0, 40)}"`);
    out.push(a);
  }
  return known(out, what);
}

/** Every entry an address of a known family, or the whole read refused (a one-word error body is not a one-address list). */
function known(addresses: string[], what: string): string[] {
  const bad = addresses.filter((a) => !listedFamily(a));
  if (bad.length)
    throw new Error(
      `${what} has ${bad.length} ${bad.length === 1 ? 'entry' : 'entries'} that ${bad.length === 1 ? 'is' : 'are'} no known address, e.g. "${bad[0]!.slice(0, 40)}"`,
    );
  return addresses;
}

/** The list made of these addresses (duplicates and casing folded by key). */
export function makeList(
  addresses: Iterable<string>,
  meta: { source: string; date: string; fetchedAt: string; assets?: string[] | undefined },
): SanctionsList {
  const keys = new Set<string>();
  for (const a of addresses) keys.add(addressKey(a));
  const { assets, ...rest } = meta;
  return { ...rest, ...(assets?.length ? { assets } : {}), sha256: digestOf(keys), count: keys.size, addresses: keys };
}

export function digestOf(keys: Iterable<string>): string {
  return createHash('sha256')
    .update([...keys].sort().join('\n'))
    .digest('hex');
}

export const listRef = ({ addresses: _a, ...ref }: SanctionsList): ListRef => ref;

export const isListed = (list: Pick<SanctionsList, 'addresses'>, address: string): boolean =>
  list.addresses.has(addressKey(address));

/** What a refresh changed: removals count as well as additions (an address delisted is screened no more). */
export function listChanges(before: SanctionsList, after: SanctionsList): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const k of after.addresses) if (!before.addresses.has(k)) added += 1;
  for (const k of before.addresses) if (!after.addresses.has(k)) removed += 1;
  return { added, removed };
}

/** How old the list is at `now`: since it was last read from its source. */
export const listAge = (list: Pick<SanctionsList, 'fetchedAt'>, now: number): number =>
  Math.max(0, now - Date.parse(list.fetchedAt));
