/**
 * A deposit's sender screened (src/alerts/sanctions.ts) when only the wallet history names it
 * (`fromAddress`): the notification carried none. With the real store; the app-level path (the
 * notification's sender) is in screening-app.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { screenDeposit } from '../../src/alerts/sanctions.js';
import type { Alert } from '../../src/alerts/types.js';
import { recentAudit } from '../../src/audit/index.js';
import { makeList, listRef } from '../../src/screening/list.js';
import type { ScreeningNotice } from '../../src/screening/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { quietLogger } from '../withdrawals/helpers.js';

const SENDER = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96';
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

it('flags a deposit by the history record’s sender, once: no @here, audited, the admins told', async () => {
  store = await openStore({ dir: mkdtempSync(join(tmpdir(), 'deposit-screen-')), logger: quietLogger() });
  const list = makeList([SENDER.toLowerCase()], {
    source: 'test',
    date: '2026-11-27T00:00:00.000Z',
    fetchedAt: '2026-11-28T00:00:00.000Z',
  });
  const told: ScreeningNotice[] = [];
  const screening = {
    listed: (a: string | undefined) =>
      a && list.addresses.has(a.toLowerCase()) ? { address: a, list: listRef(list), by: 'list' as const } : undefined,
    tell: (_tx: unknown, n: ScreeningNotice) => void told.push(n),
  };
  const alert = {
    id: 'a1',
    kind: 'deposit',
    hash: '0xabc',
    amount: '25000',
    currency: 'USDT',
    network: 'BSC',
    mention: true,
    verification: { state: 'confirmed', attempts: 1 },
  } as unknown as Alert;
  const flagged = await store.commit((tx) =>
    screenDeposit(tx, alert, screening, Date.parse('2026-11-28T12:00:00Z'), SENDER),
  );
  expect(flagged).toMatchObject({
    mention: false,
    depositAddress: SENDER,
    sanctioned: { address: SENDER, by: 'list', list: { sha256: list.sha256 } },
  });
  expect(told).toEqual([
    expect.objectContaining({
      kind: 'deposit',
      address: SENDER,
      amount: '25000',
      list: { date: list.date, sha256: list.sha256 },
    }),
  ]);
  // Judged once per alert.
  const again = await store.commit((tx) => screenDeposit(tx, flagged, screening, Date.now(), SENDER));
  expect(again).toBe(flagged);
  expect(recentAudit(store, 10).filter((e) => e.action === 'sanctions_deposit')).toHaveLength(1);
  // A sender not on the list, or no sender at all: unchanged.
  const clean = { ...alert, id: 'a2' } as Alert;
  expect(
    await store.commit((tx) =>
      screenDeposit(tx, clean, screening, Date.now(), '0x2222222222222222222222222222222222222222'),
    ),
  ).toBe(clean);
  expect(await store.commit((tx) => screenDeposit(tx, clean, screening, Date.now()))).toBe(clean);
});

it('a forged notification naming a listed sender, unconfirmed by the service: flagged as reported, nothing audited, no admin told; confirmed, told once', async () => {
  store = await openStore({ dir: mkdtempSync(join(tmpdir(), 'deposit-forged-')), logger: quietLogger() });
  const list = makeList([SENDER], {
    source: 't',
    date: '2026-11-27T00:00:00.000Z',
    fetchedAt: '2026-11-28T00:00:00.000Z',
  });
  const told: ScreeningNotice[] = [];
  const screening = {
    listed: (a: string | undefined) =>
      a && list.addresses.has(a.toLowerCase()) ? { address: a, list: listRef(list), by: 'list' as const } : undefined,
    tell: (_tx: unknown, n: ScreeningNotice) => void told.push(n),
  };
  const claimed = {
    id: 'f1',
    kind: 'deposit',
    hash: '0xforged',
    amount: '90000',
    currency: 'USDT',
    network: 'BSC',
    mention: true,
    senderAddress: SENDER,
    verification: { state: 'unverified', attempts: 0 },
  } as unknown as Alert;
  const flagged = await store.commit((tx) => screenDeposit(tx, claimed, screening, Date.now()));
  expect(flagged.sanctioned).toMatchObject({ address: SENDER, reported: true });
  expect(flagged.mention).toBe(false);
  expect(told).toEqual([]);
  expect(recentAudit(store, 10).filter((e) => e.action === 'sanctions_deposit')).toHaveLength(0);

  // The service's history confirms it, from a clean sender: listed still (either sender), now told once.
  const CLEAN = '0x2222222222222222222222222222222222222222';
  const confirmed = { ...flagged, verification: { state: 'confirmed', attempts: 1 } } as Alert;
  const done = await store.commit((tx) => screenDeposit(tx, confirmed, screening, Date.now(), CLEAN));
  expect(done.sanctioned?.reported).toBeUndefined();
  const again = await store.commit((tx) => screenDeposit(tx, done, screening, Date.now(), CLEAN));
  expect(again).toBe(done);
  expect(told).toHaveLength(1);
  expect(recentAudit(store, 10).filter((e) => e.action === 'sanctions_deposit')).toHaveLength(1);

  // A notification naming a clean sender while the history names a listed one: the history's decides.
  const hidden = { ...claimed, id: 'f2', senderAddress: CLEAN, verification: { state: 'confirmed', attempts: 1 } };
  const caught = await store.commit((tx) => screenDeposit(tx, hidden as Alert, screening, Date.now(), SENDER));
  expect(caught.sanctioned).toMatchObject({ address: SENDER });
  expect(told).toHaveLength(2);
});
