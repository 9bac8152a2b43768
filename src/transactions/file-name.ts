/**
 * An export's file name says what it holds and when it was made, so two files in a folder of
 * downloads are told apart: `transactions-xero-currency-USDT-type-withdrawal-20261125-003015Z.csv`.
 * Two exports never share a name: one made in the same second as another of the same filters
 * gets a counter (`-2`).
 */
import type { RawFilters } from './filters.js';
import type { ExportFormat } from './formats.js';

/** Longest part of the name the filters may take (a client's e-mail, a 128-character hash). */
const FILTERS_MAX = 120;
/** Names remembered to tell a second export of the same second apart. */
const REMEMBERED = 1_000;

/** `20261125-003015Z`: sortable, no characters a file system refuses. */
export function fileStamp(at: number): string {
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}Z`;
}

/** The filters as a piece of a file name: `currency-USDT-type-withdrawal`, `all` when none. */
export function filtersSlug(raw: RawFilters): string {
  const parts = Object.entries(raw)
    .filter(([k, v]) => k !== 'page' && k !== 'size' && v !== undefined)
    .map(([k, v]) => `${k}-${String(v)}`);
  if (!parts.length) return 'all';
  // Letters, digits and . @ - _ only: the name is safe on every system and in a Slack upload.
  return parts
    .join('-')
    .replace(/[^A-Za-z0-9.@_-]+/g, '_')
    .slice(0, FILTERS_MAX);
}

export interface FileNamer {
  name(o: { raw: RawFilters; format: ExportFormat; at: number; incomplete?: boolean }): string;
}

/** Names for one app: each distinct. */
export function fileNamer(): FileNamer {
  const issued = new Set<string>();
  return {
    name({ raw, format, at, incomplete }) {
      const base = `transactions${format === 'csv' ? '' : `-${format}`}-${filtersSlug(raw)}-${fileStamp(at)}${incomplete ? '-incomplete' : ''}`;
      let name = `${base}.csv`;
      for (let n = 2; issued.has(name); n++) name = `${base}-${n}.csv`;
      issued.add(name);
      if (issued.size > REMEMBERED) issued.delete(issued.values().next().value!);
      return name;
    },
  };
}
