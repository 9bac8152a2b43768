/**
 * A list that shrinks is not trusted (issue 36 review): a one-word body is no one-address list,
 * entries must be addresses of a known family, a per-asset file the list had that now answers 404
 * fails the read, a redirect is refused (never followed, so never https → http), and a refresh
 * that removes more than 5% of the addresses keeps the old list, is audited and told to the admins.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { parseAddresses } from '../../src/screening/list.js';
import { loadList } from '../../src/screening/load.js';
import { createProvider } from '../../src/screening/provider.js';
import { createScreening } from '../../src/screening/service.js';
import type { ScreeningNotice } from '../../src/screening/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';
import { quietLogger } from '../withdrawals/helpers.js';
import { filler, startListServer, type ListServer } from './list-server.js';

const EVM = '0x8589427373D6D84E98730D7795D8f6f8731FDA16';
const TRON = 'TJCx4A1XzNvy32sqbmi86xcURjRi1Etver';
const now = () => Date.parse('2026-11-28T12:00:00Z');

let server: ListServer | undefined;
let other: Server | undefined;
const stores: Store[] = [];
afterEach(async () => {
  await server?.close();
  other?.closeAllConnections();
  await new Promise((r) => (other ? other.close(r) : r(undefined)));
  for (const s of stores.splice(0)) await s.close();
  server = other = undefined;
});

describe('what a list read accepts', () => {
  it('refuses a one-word body and entries that are no known address; accepts EVM, TRON and BTC forms', () => {
    expect(() => parseAddresses('unavailable\n', 'x')).toThrow(/no known address/);
    expect(() => parseAddresses(`${EVM}\nOK\n`, 'x')).toThrow(/no known address, e.g. "OK"/);
    expect(() => parseAddresses(JSON.stringify([EVM, 'null']), 'x')).toThrow(/no known address/);
    // A TRON address with a broken checksum is no TRON address.
    expect(() => parseAddresses('TQ8pPXb1w4zNEFMHkDmBvbXHd6wjVvxAJq\n', 'x')).toThrow(/no known address/);
    const ok = [EVM, TRON, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6'];
    expect(parseAddresses(ok.join('\n'), 'x')).toEqual(ok);
  });

  it('a per-asset file the list had that now answers 404 fails the read', async () => {
    server = await startListServer();
    server.files.set('sanctioned_addresses_ETH.txt', `${EVM}\n`);
    server.files.set('sanctioned_addresses_TRX.txt', `${TRON}\n`);
    const first = await loadList(server.base, { now });
    expect(first.assets).toEqual(['ETH', 'TRX']);
    server.files.delete('sanctioned_addresses_TRX.txt');
    await expect(loadList(server.base, { now, assets: first.assets })).rejects.toThrow(
      /no longer has the files of TRX/,
    );
  });

  it('refuses a redirect instead of following it', async () => {
    server = await startListServer(`${EVM}\n`);
    other = createServer((_req, res) => {
      res.writeHead(302, { location: server!.url });
      res.end();
    });
    await new Promise<void>((r) => other!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/list.txt`;
    await expect(loadList(url, { now })).rejects.toThrow(/HTTP 302/);
    expect(server.hits).toBe(0);
  });
});

describe('a refresh that shrinks the list', () => {
  it('removing more than 5% keeps the old list, is audited and told to the admins once; a small delisting is taken', async () => {
    server = await startListServer(`${filler(40)}${EVM}\n${TRON}\n`);
    const store = await openStore({ dir: mkdtempSync(join(tmpdir(), 'screening-shrink-')), logger: quietLogger() });
    stores.push(store);
    const told: ScreeningNotice[] = [];
    const s = await createScreening({
      source: server.url,
      store,
      policy: fixedPolicy(parsePolicy(`${TEST_POLICY_YAML}\nscreening: { refresh: 1h }\n`)),
      now,
      logger: quietLogger(),
      tell: (_tx, n) => told.push(n),
    });
    await s.refresh({ force: true });
    expect(s.status().list.count).toBe(42);

    server.text = `${filler(20)}${EVM}\n`; // 21 of 42 gone
    await expect(s.refresh({ force: true })).rejects.toThrow(/removes 21 of the 42 addresses/);
    await expect(s.refresh({ force: true })).rejects.toThrow(/removes 21/);
    expect(s.status().list.count).toBe(42);
    expect(s.listed(TRON)).toBeDefined();
    const failed = recentAudit(store, 50).filter((e) => e.action === 'screening_list_refresh_failed');
    expect(failed).toHaveLength(1);
    expect(told).toEqual([expect.objectContaining({ kind: 'list-refused', address: server.url })]);

    server.text = `${filler(40)}${EVM}\n`; // one delisted: 2.4%
    await s.refresh({ force: true });
    expect(s.status().list.count).toBe(41);
    expect(s.listed(TRON)).toBeUndefined();
  });
});

describe('a server that drips its answer', () => {
  it('a list fetch and a provider call end at their deadline; the provider counts as down', async () => {
    const timers = new Set<NodeJS.Timeout>();
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Headers at once, then a byte every 100 ms: axios's own timeout never fires.
      const t = setInterval(() => res.write('0'), 100);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => other!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      let started = Date.now();
      await expect(loadList(`${base}/list.txt`, { now, timeoutMs: 600 })).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);

      const p = createProvider({ url: base, apiKey: 'k', now: () => Date.now(), timeoutMs: 600 });
      started = Date.now();
      expect((await p.ask(EVM)).kind).toBe('down');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });
});
