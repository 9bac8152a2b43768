/**
 * Reads a sanctions list from SANCTIONS_LIST_URL (list.ts parses): an http(s) URL or a file path,
 * either one file (one address per line, or a JSON array) or, for a base URL or a directory, the
 * per-asset `sanctioned_addresses_<ASSET>.txt` (or `.json`) files of the MIT-licensed
 * 0xB10C/ofac-sanctioned-digital-currency-addresses lists. Also the snapshot bundled with the
 * app (snapshot/, refreshed by `npm run screening:update`), so screening works with no network.
 * A read that fails throws: the caller keeps the list it has (and its age says how old it is).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axios from 'axios';
import { z } from 'zod';
import { makeList, parseAddresses, type SanctionsList } from './list.js';

/** The upstream lists, as `npm run screening:update` and production read them. */
export const UPSTREAM_LISTS_URL =
  'https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists';

/** The assets the upstream publishes one file for (a base URL has no directory listing). */
export const UPSTREAM_ASSETS = [
  'ARB',
  'BCH',
  'BSC',
  'BSV',
  'BTG',
  'DASH',
  'ETC',
  'ETH',
  'LTC',
  'TRX',
  'USDC',
  'USDT',
  'XBT',
  'XMR',
  'XRP',
  'XVG',
  'ZEC',
] as const;

export const SNAPSHOT_DIR = fileURLToPath(new URL('./snapshot/', import.meta.url));
const PER_ASSET = /^sanctioned_addresses_([A-Z0-9]+)\.(txt|json)$/;
const MAX_BYTES = 20 * 1024 * 1024;

export const manifestSchema = z.object({
  source: z.string(),
  date: z.string().datetime({ offset: true }),
  count: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  files: z.record(z.string(), z.object({ sha256: z.string(), count: z.number().int() })),
  license: z.string(),
});
export type Manifest = z.infer<typeof manifestSchema>;

export interface LoadOptions {
  now: () => number;
  timeoutMs?: number;
  /** The per-asset files the list in force came from: each must be there again (a 404 is a shrunk source, not "no such asset"). */
  assets?: readonly string[] | undefined;
}

async function get(url: string, timeoutMs: number): Promise<{ text: string; lastModified?: number } | 'missing'> {
  const res = await axios.get<string>(url, {
    timeout: timeoutMs,
    // An overall deadline: axios's timeout ends at the headers, and a server dripping bytes would stall the job.
    signal: AbortSignal.timeout(timeoutMs),
    responseType: 'text',
    transformResponse: (d: unknown) => d,
    maxContentLength: MAX_BYTES,
    validateStatus: () => true,
    // A redirect is refused, not followed: the list must come from where it was configured (never https → http).
    maxRedirects: 0,
  });
  if (res.status === 404) return 'missing';
  if (res.status !== 200) throw new Error(`${shown(url)} answered HTTP ${res.status}`);
  const lm = Date.parse(String(res.headers['last-modified'] ?? ''));
  return { text: String(res.data), ...(Number.isFinite(lm) ? { lastModified: lm } : {}) };
}

/** Where a URL is shown (never its query: it may carry a key). */
const shown = (url: string) => url.replace(/[?#].*$/, '');

async function fromUrl(url: string, o: LoadOptions): Promise<SanctionsList> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const fetchedAt = new Date(o.now()).toISOString();
  if (/\.(txt|json)$/i.test(new URL(url).pathname)) {
    const got = await get(url, timeoutMs);
    if (got === 'missing') throw new Error(`${shown(url)} answered HTTP 404`);
    const date = got.lastModified ? new Date(got.lastModified).toISOString() : fetchedAt;
    return makeList(parseAddresses(got.text, shown(url)), { source: shown(url), date, fetchedAt });
  }
  // A base URL of the per-asset layout: every asset's text file. An asset the source lacks is skipped
  // only when the list in force lacked it too: one that answered before and 404s now is a failed read.
  const base = url.replace(/\/+$/, '');
  const all: string[] = [];
  const assets: string[] = [];
  let newest = 0;
  const files = UPSTREAM_ASSETS.map((asset) => `${base}/sanctioned_addresses_${asset}.txt`);
  const answers = await Promise.all(files.map((file) => get(file, timeoutMs)));
  const lost = UPSTREAM_ASSETS.filter((asset, i) => answers[i] === 'missing' && o.assets?.includes(asset));
  if (lost.length) throw new Error(`${shown(base)} no longer has the files of ${lost.join(', ')} (HTTP 404)`);
  answers.forEach((got, i) => {
    if (got === 'missing') return;
    assets.push(UPSTREAM_ASSETS[i]!);
    newest = Math.max(newest, got.lastModified ?? 0);
    all.push(...parseAddresses(got.text, shown(files[i]!)));
  });
  if (!assets.length) throw new Error(`${shown(base)} has none of the sanctioned_addresses_<ASSET>.txt files`);
  const date = newest ? new Date(newest).toISOString() : fetchedAt;
  return makeList(all, { source: shown(base), date, fetchedAt, assets });
}

/** The per-asset files of a directory, one per asset (the text file when both are there). */
export async function assetFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => PER_ASSET.test(n)).sort();
  return names.filter((n) => !(n.endsWith('.json') && names.includes(n.replace(/\.json$/, '.txt'))));
}

async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    return manifestSchema.parse(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * A local file is as old as its modification time (or its manifest's date), not as old as the
 * moment it was read: reading a file nobody updates must not make the list look fresh (max_age).
 */
async function fromPath(path: string, o: LoadOptions, source = path): Promise<SanctionsList> {
  const st = await stat(path);
  const dated = (ms: number) => new Date(Math.min(ms, o.now())).toISOString();
  if (!st.isDirectory()) {
    const text = await readFile(path, 'utf8');
    const date = dated(st.mtimeMs);
    return makeList(parseAddresses(text, path), { source, date, fetchedAt: date });
  }
  const files = await assetFiles(path);
  if (!files.length) throw new Error(`${path} has none of the sanctioned_addresses_<ASSET>.txt files`);
  const all: string[] = [];
  let newest = 0;
  for (const f of files) {
    all.push(...parseAddresses(await readFile(join(path, f), 'utf8'), join(path, f)));
    newest = Math.max(newest, (await stat(join(path, f))).mtimeMs);
  }
  // A directory written by `npm run screening:update` says the date of its data in its manifest.
  const manifest = await readManifest(path);
  const date = manifest?.date ?? dated(newest);
  return makeList(all, { source, date, fetchedAt: date });
}

/** The list at `source` (URL, file or directory), read now. Throws with the reason when it cannot be read. */
export function loadList(source: string, o: LoadOptions): Promise<SanctionsList> {
  return /^https?:\/\//i.test(source) ? fromUrl(source, o) : fromPath(source, o);
}

/**
 * The snapshot shipped with the app: its data is as old as its manifest's date, so that is also
 * when it counts as read (an old snapshot is a stale list, and says so).
 */
export async function loadBundled(o: LoadOptions): Promise<SanctionsList> {
  const manifest = await readManifest(SNAPSHOT_DIR);
  if (!manifest) throw new Error('the bundled sanctions snapshot has no readable manifest.json');
  const list = await fromPath(SNAPSHOT_DIR, o, `the bundled snapshot of ${manifest.source}`);
  if (list.sha256 !== manifest.sha256)
    throw new Error('the bundled sanctions snapshot does not match its manifest (sha256): it was altered');
  return { ...list, date: manifest.date, fetchedAt: manifest.date };
}
