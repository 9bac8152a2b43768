/**
 * `npm run screening:update`: the bundled snapshot refreshed from the upstream lists (the per-asset
 * text files of 0xB10C/ofac-sanctioned-digital-currency-addresses, MIT), with a manifest that says
 * where and when they were read, how many addresses they hold and their sha256 (list.ts's digest
 * over the keys, and each file's own). Run by hand before a release, never at install time.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import axios from 'axios';
import { makeList, parseAddresses } from './list.js';
import { UPSTREAM_ASSETS, type Manifest } from './load.js';

export const LICENSE_NOTE =
  'MIT License, Copyright (c) 2021 0xB10C: see LICENSE beside this file (https://github.com/0xB10C/ofac-sanctioned-digital-currency-addresses).';

export async function updateSnapshot(o: {
  baseUrl: string;
  dir: string;
  now: () => number;
  timeoutMs?: number;
}): Promise<Manifest> {
  const base = o.baseUrl.replace(/\/+$/, '');
  const texts = new Map<string, string>();
  for (const asset of UPSTREAM_ASSETS) {
    const name = `sanctioned_addresses_${asset}.txt`;
    const res = await axios.get<string>(`${base}/${name}`, {
      timeout: o.timeoutMs ?? 30_000,
      responseType: 'text',
      transformResponse: (d: unknown) => d,
      validateStatus: () => true,
    });
    if (res.status === 404) continue;
    if (res.status !== 200) throw new Error(`${base}/${name} answered HTTP ${res.status}: nothing was changed`);
    const text = String(res.data);
    parseAddresses(text, name); // a broken file stops the update before anything is written
    texts.set(name, text);
  }
  if (!texts.size) throw new Error(`${base} has none of the per-asset files: nothing was changed`);
  const date = new Date(o.now()).toISOString();
  const files: Manifest['files'] = {};
  const all: string[] = [];
  for (const [name, text] of texts) {
    const addresses = parseAddresses(text, name);
    all.push(...addresses);
    files[name] = { sha256: createHash('sha256').update(text).digest('hex'), count: addresses.length };
  }
  const list = makeList(all, { source: base, date, fetchedAt: date });
  const manifest: Manifest = {
    source: base,
    date,
    count: list.count,
    sha256: list.sha256,
    files,
    license: LICENSE_NOTE,
  };
  // Only now, every file read and checked: the old per-asset files go, the new ones and the manifest come.
  await mkdir(o.dir, { recursive: true });
  for (const old of await readdir(o.dir))
    if (/^sanctioned_addresses_.*\.(txt|json)$/.test(old) && !texts.has(old)) await rm(join(o.dir, old));
  for (const [name, text] of texts) await writeFile(join(o.dir, name), text);
  await writeFile(join(o.dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
