/**
 * The Chainalysis-compatible provider against the sandbox's endpoint over HTTP: listed, clean and
 * down (503, a wrong key, no answer in time), answers kept a day and a failure a minute; and the
 * screening service's refresh: a failed read keeps the last list, an empty one is refused, a
 * restart keeps the list read last (and its age).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { SANDBOX_SCREENING_KEY } from '../../src/sandbox/screening.js';
import { createProvider } from '../../src/screening/provider.js';
import { createScreening } from '../../src/screening/service.js';
import { openStore, type Store } from '../../src/store/index.js';
import { recentAudit } from '../../src/audit/index.js';
import { TEST_POLICY_YAML } from '../helpers/treasury-app.js';
import { quietLogger } from '../withdrawals/helpers.js';
import { filler, startListServer, type ListServer } from './list-server.js';

const LISTED = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96';
const CLEAN = '0x2222222222222222222222222222222222222222';

let sandbox: Sandbox | undefined;
let server: ListServer | undefined;
const stores: Store[] = [];
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  for (const s of stores.splice(0)) await s.close();
  sandbox = server = undefined;
});

describe('the provider, against the sandbox endpoint', () => {
  it('answers listed, clean and down, keeps answers a day and a failure a minute', async () => {
    sandbox = await createSandbox({ seed: false });
    let t = Date.parse('2026-11-28T12:00:00Z');
    const p = createProvider({ url: sandbox.url, apiKey: SANDBOX_SCREENING_KEY, now: () => t });
    sandbox.screening.providerAdd(LISTED);

    // Asked in another casing: an EVM address is the same address.
    expect(await p.ask(LISTED.toLowerCase())).toMatchObject({
      kind: 'listed',
      names: ['SANCTIONS: OFAC SDN (sandbox test entry)'],
    });
    expect(await p.ask(CLEAN)).toMatchObject({ kind: 'clean' });
    expect(sandbox.screening.providerAnswers()).toBe(2);
    expect(p.answer(LISTED)?.kind).toBe('listed');

    // Kept a day: no second call; then asked again.
    sandbox.screening.providerRemove(LISTED);
    t += 23 * 3_600_000;
    expect((await p.ask(LISTED)).kind).toBe('listed');
    expect(sandbox.screening.providerAnswers()).toBe(2);
    t += 2 * 3_600_000;
    expect((await p.ask(LISTED)).kind).toBe('clean');

    // Down: said so, kept a minute only.
    sandbox.screening.providerDown(true);
    const other = '0x3333333333333333333333333333333333333333';
    expect(await p.ask(other)).toMatchObject({ kind: 'down', reason: 'HTTP 503' });
    sandbox.screening.providerDown(false);
    expect((await p.ask(other)).kind).toBe('down');
    t += 61_000;
    expect((await p.ask(other)).kind).toBe('clean');
  });

  it('a wrong key and an answer too late are down, never clean', async () => {
    sandbox = await createSandbox({ seed: false });
    const now = () => Date.now();
    const wrongKey = createProvider({ url: sandbox.url, apiKey: 'not-the-key', now });
    expect(await wrongKey.ask(CLEAN)).toMatchObject({ kind: 'down', reason: 'HTTP 401' });

    const slow = createServer(() => undefined); // never answers
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const late = createProvider({
        url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
        apiKey: 'k',
        now,
        timeoutMs: 200,
      });
      expect((await late.ask(CLEAN)).kind).toBe('down');
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});

describe('the list refreshed', () => {
  const policy = fixedPolicy(parsePolicy(`${TEST_POLICY_YAML}\nscreening: { refresh: 1h, max_age: 2h }\n`));
  async function service(dir: string, source: string, now: () => number) {
    const store = await openStore({ dir, logger: quietLogger() });
    stores.push(store);
    return { store, s: await createScreening({ source, store, policy, now, logger: quietLogger() }) };
  }

  it('a failed read keeps the last list and says so once in the audit; an empty list is refused; a restart keeps the last list and its age', async () => {
    server = await startListServer(`${filler(40)}${LISTED}\n`);
    const dir = mkdtempSync(join(tmpdir(), 'screening-store-'));
    let t = Date.parse('2026-11-28T12:00:00Z');
    const { store, s } = await service(dir, server.url, () => t);
    // Before the first read: the bundled snapshot, old, so stale.
    expect(s.status()).toMatchObject({ bundled: true, stale: true });
    await s.refresh();
    expect(s.status()).toMatchObject({ bundled: false, stale: false, list: { count: 41 } });
    expect(s.listed(LISTED.toUpperCase().replace('0X', '0x'))).toMatchObject({ by: 'list' });

    server.down = true;
    t += 3 * 3_600_000;
    await expect(s.refresh()).rejects.toThrow(/could not be read/);
    await expect(s.refresh()).rejects.toThrow(/could not be read/);
    expect(s.status()).toMatchObject({
      stale: true,
      list: { count: 41 },
      failing: { error: expect.stringContaining('503') },
    });
    expect(recentAudit(store, 100).filter((e) => e.action === 'screening_list_refresh_failed')).toHaveLength(1);

    server.down = false;
    server.text = '# nothing listed today\n';
    await expect(s.refresh()).rejects.toThrow(/holds no address/);
    expect(s.listed(LISTED)).toBeDefined();

    server.text = `${filler(40)}${CLEAN}\n`;
    await s.refresh();
    expect(s.listed(LISTED)).toBeUndefined();
    expect(s.status()).toMatchObject({ stale: false, list: { count: 41 } });
    const fetchedAt = s.status().list.fetchedAt;
    await store.close();
    stores.pop();

    // Restarted while the source is down: the list read last, with its true age.
    server.down = true;
    t += 30 * 60_000;
    const again = await service(dir, server.url, () => t);
    expect(again.s.status()).toMatchObject({ bundled: false, list: { fetchedAt } });
    expect(again.s.listed(CLEAN)).toBeDefined();
    expect(again.s.status().ageMs).toBe(30 * 60_000);
  });
});
