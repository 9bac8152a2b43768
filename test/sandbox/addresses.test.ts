import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFamily, isValidAddress } from '../../src/wallet/addresses.js';
import { network } from '../../src/wallet/enums.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { M, apiKey, call, expectProblem401, generate, rawRequest } from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ ...CANONICAL, seed: false });
});
afterAll(async () => {
  await sb.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('wallet address generation', () => {
  it('returns the v1 envelope with a valid address for the network', async () => {
    const res = await generate(sb, 'alice@client.test', '4', 'BSC');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 1, message: expect.any(String) });
    const d = res.json.data;
    expect(d).toEqual({
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      merchantClientId: expect.stringMatching(UUID),
      addressGenerationStatus: 1,
      addressGenerationMessage: expect.any(String),
      addressGenerationTransactionHash: null,
    });
  });

  // The network decides the format, never the currency: BTC on BSC is a BEP-20 token at a 0x address.
  it.each([
    ['USDT', 'TRON', /^T[1-9A-HJ-NP-Za-km-z]{33}$/],
    ['BTC', 'BSC', /^0x[0-9a-f]{40}$/],
    ['LTC', 'ETH', /^0x[0-9a-f]{40}$/],
    ['BTC', 'TRON', /^T[1-9A-HJ-NP-Za-km-z]{33}$/],
    ['ETH', 'ETHEREUM', /^0x[0-9a-f]{40}$/],
    ['MATIC', 'POLYGON', /^0x[0-9a-f]{40}$/],
  ])('%s on %s gets an address of the network’s format', async (c, n, format) => {
    const res = await generate(sb, 'fam@client.test', c, n);
    expect(res.status).toBe(200);
    expect(res.json.data.address).toMatch(format);
    expect(isValidAddress(addressFamily(network(n)!), res.json.data.address)).toBe(true);
  });

  it('accepts currency as code, numeric string or name (any case), and network as name or code', async () => {
    const a = await generate(sb, 'forms@client.test', 4, 'BSC');
    const b = await generate(sb, 'forms@client.test', '4', '1');
    const c = await generate(sb, 'forms@client.test', 'usdt', 'bsc');
    expect(a.json.data.address).toBe(b.json.data.address);
    expect(b.json.data.address).toBe(c.json.data.address);
  });

  it('is deterministic per client + currency + network, and per merchant', async () => {
    const a = await generate(sb, 'bob@client.test', 'USDT', 'BSC');
    const again = await generate(sb, 'BOB@client.test', 'USDT', 'BSC');
    const otherCurrency = await generate(sb, 'bob@client.test', 'BUSD', 'BSC');
    const otherNetwork = await generate(sb, 'bob@client.test', 'USDT', 'POLYGON');
    expect(again.json.data.address).toBe(a.json.data.address);
    expect(otherCurrency.json.data.address).not.toBe(a.json.data.address);
    expect(otherNetwork.json.data.address).not.toBe(a.json.data.address);
    // merchantClientId: one per client e-mail
    expect(otherCurrency.json.data.merchantClientId).toBe(a.json.data.merchantClientId);
    const carol = await generate(sb, 'carol@client.test', 'USDT', 'BSC');
    expect(carol.json.data.merchantClientId).not.toBe(a.json.data.merchantClientId);

    sb.addMerchant({
      email: 'other@merchant.test',
      password: 'other-password',
      apiKey: 'sk_other_123456',
      publicKey: 'pk_other_123456',
    });
    const foreign = await generate(sb, 'bob@client.test', 'USDT', 'BSC', 'sk_other_123456', 'pk_other_123456');
    expect(foreign.json.data.address).not.toBe(a.json.data.address);

    // A second sandbox derives the same address: it does not depend on process state.
    const sb2 = await createSandbox({ ...CANONICAL, seed: false });
    try {
      expect((await generate(sb2, 'bob@client.test', 'USDT', 'BSC')).json.data.address).toBe(a.json.data.address);
    } finally {
      await sb2.close();
    }
  });

  it('also answers GET with a body', async () => {
    const post = await generate(sb, 'get@client.test', 'USDT', 'BSC');
    const res = await rawRequest(
      `${sb.url}/api/v1/walletaddress/generate`,
      'GET',
      { ...apiKey(), 'content-type': 'application/json' },
      JSON.stringify({
        clientEmailAddress: 'get@client.test',
        currency: '4',
        networkChain: 'BSC',
        publicKey: M.publicKey,
      }),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).data.address).toBe(post.json.data.address);
  });

  it('"+pending" gives status 2 and "+failfail" status 3, without an address', async () => {
    const pending = await generate(sb, 'dave+pending@client.test', 'USDT', 'BSC');
    expect(pending.json).toMatchObject({ status: 1, data: { addressGenerationStatus: 2, address: '' } });
    const failed = await generate(sb, 'erin+failfail@client.test', 'USDT', 'BSC');
    expect(failed.json).toMatchObject({ status: 1, data: { addressGenerationStatus: 3, address: '' } });
    expect(failed.json.data.addressGenerationMessage).toMatch(/fail/i);
  });

  it('needs Authorization: ApiKey with the merchant key', async () => {
    const body = { clientEmailAddress: 'x@client.test', currency: '4', networkChain: 'BSC', publicKey: M.publicKey };
    expectProblem401(await call(sb, 'POST', '/api/v1/walletaddress/generate', { body }));
    expectProblem401(
      await call(sb, 'POST', '/api/v1/walletaddress/generate', { body, headers: apiKey('sk_wrong_key') }),
    );
    expectProblem401(
      await call(sb, 'POST', '/api/v1/walletaddress/generate', {
        body,
        headers: { authorization: `Bearer ${M.apiKey}` },
      }),
    );
  });

  it.each([
    [
      'a bad e-mail',
      { clientEmailAddress: 'not-an-email', currency: '4', networkChain: 'BSC', publicKey: M.publicKey },
      /clientEmailAddress/,
    ],
    [
      'an unknown currency',
      { clientEmailAddress: 'x@client.test', currency: 'DOGE', networkChain: 'BSC', publicKey: M.publicKey },
      /currency/,
    ],
    [
      'an unknown network',
      { clientEmailAddress: 'x@client.test', currency: '4', networkChain: 'SOLANA', publicKey: M.publicKey },
      /network/i,
    ],
    ['a missing field', { clientEmailAddress: 'x@client.test', currency: '4', publicKey: M.publicKey }, /networkChain/],
    [
      'a foreign publicKey',
      { clientEmailAddress: 'x@client.test', currency: '4', networkChain: 'BSC', publicKey: 'pk_someone_else' },
      /public ?key/i,
    ],
  ])('400 v1 failure envelope for %s', async (_, body, pattern) => {
    const res = await call(sb, 'POST', '/api/v1/walletaddress/generate', { body, headers: apiKey() });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 0, message: expect.any(String), data: expect.any(String) });
    expect(`${res.json.message} ${res.json.data}`).toMatch(pattern);
  });

  it('400 for malformed JSON and for a non-object body', async () => {
    for (const raw of ['{"clientEmailAddress":', '[1,2]', '']) {
      const res = await call(sb, 'POST', '/api/v1/walletaddress/generate', {
        raw,
        headers: { ...apiKey(), 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.json.status).toBe(0);
    }
  });
});
