/**
 * The sanctions list: every accepted format (text with comments, a JSON array, the upstream's
 * per-asset files in a directory or under a base URL served over loopback), the same sha256
 * whatever the format or order, EVM addresses compared in any casing and others exactly, a broken
 * download never taken for a list, the bundled snapshot checked against its manifest, and
 * `npm run screening:update` tested against a loopback server with the upstream's layout.
 */
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addressKey, isListed, listAge, listChanges, makeList, parseAddresses } from '../../src/screening/list.js';
import { loadBundled, loadList, manifestSchema, SNAPSHOT_DIR } from '../../src/screening/load.js';
import { updateSnapshot } from '../../src/screening/update.js';
import { startListServer, type ListServer } from './list-server.js';

const EVM = '0x8589427373D6D84E98730D7795D8f6f8731FDA16';
const TRON = 'TJCx4A1XzNvy32sqbmi86xcURjRi1Etver';
const BTC = 'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6';
const now = () => Date.parse('2026-11-28T12:00:00Z');
const meta = { source: 's', date: '2026-11-28T00:00:00.000Z', fetchedAt: '2026-11-28T00:00:00.000Z' };

let server: ListServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('parsing', () => {
  it('reads text with comments and blank lines, and a JSON array, to the same list and sha256', () => {
    const text = `# OFAC SDN\n\n${EVM}\n${TRON}   # a TRON address\n  ${BTC}\n`;
    const json = JSON.stringify([BTC, EVM.toLowerCase(), TRON, EVM]);
    expect(parseAddresses(text, 'x')).toEqual([EVM, TRON, BTC]);
    const a = makeList(parseAddresses(text, 'x'), meta);
    const b = makeList(parseAddresses(json, 'y'), meta);
    expect(a.count).toBe(3);
    expect(b.sha256).toBe(a.sha256);
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses what is not a list: an HTML error page, a JSON object, a non-string entry, a sentence', () => {
    expect(() => parseAddresses('<html>rate limited</html>', 'x')).toThrow(/neither a list/);
    expect(() => parseAddresses('{"addresses":[]}', 'x')).toThrow(/neither a list/);
    expect(() => parseAddresses('[1, 2]', 'x')).toThrow(/JSON array of address strings/);
    expect(() => parseAddresses('[not json', 'x')).toThrow(/not valid JSON/);
    expect(() => parseAddresses('404 Not Found', 'x')).toThrow(/not an address/);
  });

  it('compares EVM addresses in any casing, every other address exactly', () => {
    const list = makeList([EVM, TRON], meta);
    expect(isListed(list, EVM.toLowerCase())).toBe(true);
    expect(isListed(list, EVM.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(isListed(list, ` ${EVM} `)).toBe(true);
    expect(isListed(list, TRON)).toBe(true);
    expect(isListed(list, TRON.toLowerCase())).toBe(false);
    expect(addressKey(BTC)).toBe(BTC);
  });

  it('counts removals as well as additions, and ages from the last read', () => {
    const before = makeList([EVM, TRON], meta);
    const after = makeList([TRON, BTC], meta);
    expect(listChanges(before, after)).toEqual({ added: 1, removed: 1 });
    expect(listAge(before, Date.parse(meta.fetchedAt) + 5_000)).toBe(5_000);
  });
});

describe('loading', () => {
  it('a file path (text or JSON) and a directory of per-asset files (text preferred over JSON)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sanctions-'));
    writeFileSync(join(dir, 'one.txt'), `${EVM}\n`);
    writeFileSync(join(dir, 'one.json'), JSON.stringify([TRON]));
    expect([...(await loadList(join(dir, 'one.txt'), { now })).addresses]).toEqual([EVM.toLowerCase()]);
    expect([...(await loadList(join(dir, 'one.json'), { now })).addresses]).toEqual([TRON]);

    const assets = mkdtempSync(join(tmpdir(), 'sanctions-assets-'));
    writeFileSync(join(assets, 'sanctioned_addresses_ETH.txt'), `${EVM}\n`);
    writeFileSync(
      join(assets, 'sanctioned_addresses_ETH.json'),
      JSON.stringify(['0x0000000000000000000000000000000000000bad']),
    );
    writeFileSync(join(assets, 'sanctioned_addresses_TRX.json'), JSON.stringify([TRON]));
    writeFileSync(join(assets, 'README.md'), '# not a list');
    const list = await loadList(assets, { now });
    expect([...list.addresses].sort()).toEqual([EVM.toLowerCase(), TRON].sort());
    // A local list is as old as its files, not as the moment it was read (max_age sees a file nobody updates).
    const old = new Date('2026-11-20T00:00:00Z');
    utimesSync(join(assets, 'sanctioned_addresses_ETH.txt'), old, old);
    utimesSync(join(assets, 'sanctioned_addresses_TRX.json'), old, old);
    expect((await loadList(assets, { now })).fetchedAt).toBe(old.toISOString());
    utimesSync(join(dir, 'one.txt'), old, old);
    const file = await loadList(join(dir, 'one.txt'), { now });
    expect(listAge(file, now())).toBe(now() - old.getTime());
  });

  it('a single file URL and a base URL of the upstream layout, over loopback; a source that fails throws', async () => {
    server = await startListServer(`${EVM}\n`);
    server.files.set('sanctioned_addresses_ETH.txt', `${EVM}\n`);
    server.files.set('sanctioned_addresses_XBT.txt', `${BTC}\n`);
    expect((await loadList(server.url, { now })).count).toBe(1);
    const base = await loadList(server.base, { now });
    expect([...base.addresses].sort()).toEqual([EVM.toLowerCase(), BTC].sort());
    expect(base.source).toBe(server.base);

    server.down = true;
    await expect(loadList(server.url, { now })).rejects.toThrow(/HTTP 503/);
    server.down = false;
    server.files.clear();
    await expect(loadList(server.base, { now })).rejects.toThrow(/none of the sanctioned_addresses/);
  });

  it('the bundled snapshot matches its manifest, is dated by it, and names its source and MIT licence', async () => {
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(SNAPSHOT_DIR, 'manifest.json'), 'utf8')));
    const list = await loadBundled({ now });
    expect(list.sha256).toBe(manifest.sha256);
    expect(list.count).toBe(manifest.count);
    expect(list.count).toBeGreaterThan(500);
    expect(list.date).toBe(manifest.date);
    expect(list.fetchedAt).toBe(manifest.date);
    expect(manifest.source).toBe(
      'https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists',
    );
    expect(readFileSync(join(SNAPSHOT_DIR, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.license).toMatch(/MIT/);
  });
});

describe('npm run screening:update', () => {
  it('rewrites the snapshot from a server with the upstream layout, with a manifest the loader agrees with; a failing source changes nothing', async () => {
    server = await startListServer();
    server.files.set('sanctioned_addresses_ETH.txt', `${EVM}\n0x0000000000000000000000000000000000000001\n`);
    server.files.set('sanctioned_addresses_TRX.txt', `${TRON}\n`);
    const dir = mkdtempSync(join(tmpdir(), 'snapshot-'));
    writeFileSync(join(dir, 'sanctioned_addresses_ZEC.txt'), 'old\n');
    const manifest = await updateSnapshot({ baseUrl: server.base, dir, now });
    expect(manifest).toMatchObject({ source: server.base, date: new Date(now()).toISOString(), count: 3 });
    expect(Object.keys(manifest.files).sort()).toEqual([
      'sanctioned_addresses_ETH.txt',
      'sanctioned_addresses_TRX.txt',
    ]);
    const loaded = await loadList(dir, { now });
    expect(loaded.sha256).toBe(manifest.sha256);
    expect(loaded.date).toBe(manifest.date);
    // An asset the source no longer has is gone from the snapshot.
    expect(() => readFileSync(join(dir, 'sanctioned_addresses_ZEC.txt'))).toThrow();

    const written = readFileSync(join(dir, 'manifest.json'), 'utf8');
    server.down = true;
    await expect(updateSnapshot({ baseUrl: server.base, dir, now: () => now() + 1 })).rejects.toThrow(
      /nothing was changed/,
    );
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(written);
  });
});
