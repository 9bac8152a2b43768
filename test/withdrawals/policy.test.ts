/** Each refusal rule of a withdrawal request, and the tier selection. */
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAudit, recentAudit } from '../../src/audit/index.js';
import { deriveAddress } from '../../src/wallet/addresses.js';
import { ALLOWLISTED, CLIENT, DEST, T0, usdt, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const refused = (o: { ok: boolean; rule?: string; message?: string }, rule: string) => {
  expect(o.ok, JSON.stringify(o)).toBe(false);
  expect(o.rule).toBe(rule);
  expect(o.message).toBeTruthy();
};

describe('request rules', () => {
  it('only people.requesters may request (users and members of listed groups)', async () => {
    w = await world();
    refused(await w.service.request(usdt('10'), 'U0CAROL'), 'not_requester');
    expect((await w.service.request(usdt('10'), 'U0HEIDI')).ok).toBe(true); // via S0REQUEST
    expect((await w.service.request(usdt('10'), 'U0ALICE')).ok).toBe(true);
    expect(w.service.list()).toHaveLength(2);
  });

  it('refuses amounts that are not positive decimals, and more decimals than the currency has', async () => {
    w = await world();
    for (const bad of ['0', '0.000', '-5', 'abc', '1e3', '', '1.2.3'])
      refused(await w.service.request(usdt(bad), 'U0ALICE'), 'amount');
    // A decimal comma is never read as a thousands separator: "0,5" is not 5, nor "2,50" 250.
    for (const ambiguous of ['0,5', '2,50', '1,5', '1.000,50', '12,34,567']) {
      const r = await w.service.request(usdt(ambiguous), 'U0ALICE');
      refused(r, 'amount');
      expect(!r.ok && r.message).toMatch(/ambiguous/);
    }
    refused(await w.service.request(usdt('1.1234567'), 'U0ALICE'), 'decimals'); // USDT has 6
    const ok = await w.service.request(usdt('1,000.123456'), 'U0ALICE');
    expect(ok.ok && ok.request.amount).toBe('1000.123456');
    refused(await w.service.request({ ...usdt('1'), currency: 'DOGE' }, 'U0ALICE'), 'currency');
    refused(await w.service.request({ ...usdt('1'), network: 'SOLANA' }, 'U0ALICE'), 'network');
    refused(await w.service.request({ ...usdt('1'), clientEmail: 'nobody' }, 'U0ALICE'), 'client_email');
    expect(w.service.list()).toHaveLength(1);
  });

  it('refuses a destination that is not an address of the network', async () => {
    w = await world();
    refused(await w.service.request(usdt('1', { destination: '0x1234' }), 'U0ALICE'), 'destination');
    refused(await w.service.request(usdt('1', { network: 'TRON' }), 'U0ALICE'), 'destination'); // EVM address on TRON
    // The network decides the format: BTC on BSC is a BEP-20 token at a 0x address, never a bech32 one.
    const bech32 = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    const btcOnBsc = { ...usdt('0.1'), currency: 'BTC', network: 'BSC' };
    refused(await w.service.request({ ...btcOnBsc, destination: bech32 }, 'U0ALICE'), 'destination');
    expect(w.service.list()).toHaveLength(0);
    expect((await w.service.request(btcOnBsc, 'U0ALICE')).ok).toBe(true);
  });

  it('allowlist enforce refuses unlisted addresses and accepts listed ones with their label', async () => {
    w = await world({ policy: { allowlist: 'enforce' } });
    refused(await w.service.request(usdt('10'), 'U0ALICE'), 'allowlist');
    const ok = await w.service.request(
      usdt('10', { destination: ALLOWLISTED.toUpperCase().replace('0X', '0x') }),
      'U0ALICE',
    );
    expect(ok.ok && ok.request.allowlist).toEqual({
      status: 'listed',
      label: 'Exchange hot wallet',
      neverPaidBefore: true,
    });
    // Same address on another network is not the allowlisted entry.
    refused(await w.service.request(usdt('10', { destination: ALLOWLISTED, network: 'ETH' }), 'U0ALICE'), 'allowlist');
  });

  it('allowlist warn flags, off ignores, and "never paid before" clears after a completed payment', async () => {
    w = await world({ policy: { allowlist: 'warn' } });
    const first = await w.service.request(usdt('10'), 'U0ALICE');
    expect(first.ok && first.request.allowlist).toEqual({ status: 'unlisted', neverPaidBefore: true });
    if (!first.ok) throw new Error('unreachable');
    const approved = await w.service.approve(first.request.id, 'U0CAROL');
    expect(approved.ok && (await approved.execution)?.state).toBe('completed');
    const second = await w.service.request(usdt('10'), 'U0BOB');
    expect(second.ok && second.request.allowlist).toEqual({ status: 'unlisted', neverPaidBefore: false });
    // The same EVM address on another EVM network is the same holder, paid already (as the limits group it).
    const otherNetwork = await w.service.request(usdt('10', { network: 'POLYGON' }), 'U0BOB');
    expect(otherNetwork.ok && otherNetwork.request.allowlist.neverPaidBefore).toBe(false);
    const otherCase = await w.service.request(
      usdt('10', { destination: first.request.destination.toUpperCase().replace('0X', '0x') }),
      'U0BOB',
    );
    expect(otherCase.ok && otherCase.request.allowlist.neverPaidBefore).toBe(false);
    await w.close();

    w = await world({ policy: { allowlist: 'off' } });
    const off = await w.service.request(usdt('10'), 'U0ALICE');
    expect(off.ok && off.request.allowlist).toEqual({ status: 'off', neverPaidBefore: true });
  });

  it('daily limit: decimal sums, pending requests count, rejected/expired do not, rolling 24 h', async () => {
    w = await world({ policy: { dailyLimit: { USDT: '0.3' } } });
    const a = await w.service.request(usdt('0.1'), 'U0ALICE');
    const b = await w.service.request(usdt('0.2'), 'U0BOB');
    // 0.1 + 0.2 is exactly 0.3 in decimal (a binary float would say 0.30000000000000004 > 0.3).
    expect(a.ok && b.ok).toBe(true);
    expect(w.service.dailyUsage('usdt')).toEqual({ currency: 'USDT', used: '0.3', limit: '0.3', remaining: '0' });
    refused(await w.service.request(usdt('0.000001'), 'U0ALICE'), 'daily_limit');
    if (!b.ok) throw new Error('unreachable');
    expect((await w.service.reject(b.request.id, 'U0CAROL', 'wrong amount')).ok).toBe(true);
    expect((await w.service.request(usdt('0.2'), 'U0BOB')).ok).toBe(true);
    refused(await w.service.request(usdt('0.000001'), 'U0ALICE'), 'daily_limit');
    w.clock.now = T0 + 24 * 3_600_000 + 1;
    await w.service.expireDue();
    expect(w.service.dailyUsage('USDT').used).toBe('0');
    expect((await w.service.request(usdt('0.3'), 'U0ALICE')).ok).toBe(true);
    // Currencies without a limit are not limited.
    expect((await w.service.request({ ...usdt('1'), currency: 'USDC' }, 'U0ALICE')).ok).toBe(true);
  });

  it('concurrent requests cannot together exceed the daily limit', async () => {
    w = await world({ policy: { dailyLimit: { USDT: '100' } } });
    const results = await Promise.all(Array.from({ length: 10 }, () => w!.service.request(usdt('30'), 'U0ALICE')));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(results.filter((r) => !r.ok && r.rule === 'daily_limit')).toHaveLength(7);
  });

  it('tiers: first tier whose max >= amount, per-currency list before default, none -> refused', async () => {
    w = await world({ policy: { dailyLimit: {} } });
    const tier = async (input: ReturnType<typeof usdt>) => {
      const r = await w!.service.request(input, 'U0ALICE');
      if (!r.ok) throw new Error(r.message);
      return r.request.tier;
    };
    expect(await tier(usdt('1000'))).toEqual({ index: 0, max: '1000', approvals: 1, mustInclude: [] });
    // `above`: the tier below's max, for the words ("above 10,000.00 USDT: 3 approvals").
    expect(await tier(usdt('1000.000001'))).toEqual({
      index: 1,
      max: '10000',
      above: '1000',
      approvals: 2,
      mustInclude: [],
    });
    expect(await tier(usdt('20000'))).toEqual({
      index: 2,
      max: null,
      above: '10000',
      approvals: 3,
      mustInclude: ['U0ERIN'],
    });
    const eth = { ...usdt('50'), currency: 'eth', network: 'ETH' };
    expect(await tier(eth)).toMatchObject({ index: 1, max: '100', approvals: 2, mustInclude: ['S0TREASURY'] });
    refused(await w.service.request({ ...eth, amount: '100.000000000000000001' }, 'U0ALICE'), 'tier');
    refused(
      await w.service.request(
        { ...eth, currency: 'BTC', network: 'BSC', amount: '2', destination: deriveAddress('evm', 'btc-dest') },
        'U0ALICE',
      ),
      'tier',
    );
  });

  it('a request gets an id and merchantReference at creation, and is audited', async () => {
    w = await world();
    const r = await w.service.request(usdt('12.5', { note: 'invoice 7' }), 'U0ALICE');
    if (!r.ok) throw new Error(r.message);
    const uuid = /^[0-9a-f-]{36}$/;
    expect(r.request.id).toMatch(uuid);
    expect(r.request.merchantReference).toMatch(uuid);
    expect(r.request.id).not.toBe(r.request.merchantReference);
    expect(r.request).toMatchObject({
      state: 'pending',
      requester: 'U0ALICE',
      amount: '12.5',
      currency: 'USDT',
      network: 'BSC',
      destination: DEST,
      clientEmail: CLIENT,
      note: 'invoice 7',
    });
    expect(r.request.expiresAt).toBe(new Date(T0 + 2 * 3_600_000).toISOString());
    expect(w.events.map((e) => e.type)).toEqual(['requested']);
    const [entry] = recentAudit(w.store, 1);
    expect(entry).toMatchObject({ action: 'request', actor: 'U0ALICE', subject: r.request.id });
    expect(entry?.details.merchantReference).toBe(r.request.merchantReference);
    expect(verifyAudit(w.store)).toEqual({ ok: true, count: 1 });
  });
});
