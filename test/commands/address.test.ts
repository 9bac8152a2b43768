import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressesOf } from '../../src/clients/known.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { isValidAddress } from '../../src/wallet/addresses.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

async function address(text: string, user: string = USERS.viewer) {
  const { res, responseUrl } = await t.command('/address', text, user);
  expect(res.status).toBe(200);
  const [reply] = await t.replies(responseUrl);
  return { reply: reply!, text: visibleText(reply!) };
}

describe('/address', () => {
  it('replies with the address, its details and a QR code in the DM, and repeats the same address', async () => {
    const first = await address('alice@client.example usdt bsc');
    expect(first.reply.response_type).toBe('ephemeral');
    const code = /```(0x[0-9a-f]{40})```/.exec(first.text);
    expect(code, first.text).not.toBeNull();
    const addr = code![1]!;
    expect(isValidAddress('evm', addr)).toBe(true);
    expect(first.text).toContain('alice@client.example');
    expect(first.text).toContain('USDT');
    expect(first.text).toContain('BSC');
    expect(first.text).toMatch(/Generated/);
    // The exchange-style warning, with the network's token standard; no internal client id.
    expect(first.text).toContain('Send only USDT on BSC (BEP-20); anything else may be lost.');
    expect(first.text).not.toMatch(/Client id|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);

    expect(first.text).toContain('A QR code of the address is on its way to your direct messages.');
    const qr = await until('the QR upload', () => t.fake.files().find((f) => f.name.includes(addr)));
    expect(qr.content.subarray(1, 4).toString()).toBe('PNG');
    expect(qr.channel).toBe(t.fake.dmChannel(USERS.viewer));
    expect(qr.initial_comment).toContain('Send only USDT on BSC (BEP-20); anything else may be lost.');

    const again = await address('alice@client.example 4 1');
    expect(again.text).toContain(addr);
  });

  it('still gives the address when the QR code cannot be sent, and says so', async () => {
    t.fake.failNext('files.getUploadURLExternal', { error: 'internal_error', times: 5 });
    const { responseUrl } = await t.command('/address', 'qrless@client.example usdt bsc', USERS.viewer);
    const replies = await t.repliesUntil(responseUrl, (r) => String(r.text).includes('QR code could not be sent'));
    expect(visibleText(replies[0]!)).toMatch(/```0x[0-9a-f]{40}```/);
  });

  it('accepts names in any case, codes and the public aliases', async () => {
    const tron = await address('bob@client.example usdt tron');
    expect(tron.text).toMatch(/```T[1-9A-HJ-NP-Za-km-z]{33}```/);
    const matic = await address('bob@client.example MATIC polygon');
    const polygon = await address('bob@client.example POLYGON 3');
    expect(/```(\w+)```/.exec(matic.text)![1]).toBe(/```(\w+)```/.exec(polygon.text)![1]);
    const eth = await address('bob@client.example eth ethereum');
    expect(eth.text).toContain('ETH on ETH');
    expect(eth.text).toContain('Send only ETH on ETH (ERC-20)');
    expect(tron.text).toContain('Send only USDT on TRON (TRC-20)');
    expect(polygon.text).toContain('Send only MATIC on POLYGON (Polygon PoS)');
    const btc = await address('bob@client.example btc bsc');
    // The network decides the format: BTC on BSC is a BEP-20 token at a 0x address, and the words say so.
    expect(btc.text).toMatch(/```0x[0-9a-f]{40}```/);
    expect(btc.text).toContain('Send only BTC on BSC (BEP-20); anything else may be lost.');
    expect(btc.text).toContain('BTC on BSC is a BEP-20 token at a BSC address');
    expect(btc.text).not.toMatch(/tb1|bc1/);
  });

  it('says exactly what is wrong and what is accepted', async () => {
    const bad = await address('not-an-email dogecoin moon');
    expect(bad.text).toContain('“not-an-email” is not an e-mail address');
    expect(bad.text).toContain('unknown currency “dogecoin”; accepted: BTC');
    expect(bad.text).toContain('unknown network “moon”; accepted: BSC');
    expect(bad.text).toContain('Usage: `/address <client-email> <currency> <network>`');
    expect(bad.text).not.toContain('did you mean');

    // Mistyped or colloquial names get the closest member suggested; nothing is accepted on a guess.
    const near = await address('alice@client.example usdtt binance');
    expect(near.text).toContain('unknown currency “usdtt”: did you mean *USDT*?');
    expect(near.text).toContain('unknown network “binance”: did you mean *BSC*?');
    expect(near.text).not.toMatch(/```/);
    const more = await address('alice@client.example tether trc20');
    expect(more.text).toContain('did you mean *USDT*?');
    expect(more.text).toContain('did you mean *TRON*?');
    const typo = await address('alice@client.example usdc polygn');
    expect(typo.text).toContain('unknown network “polygn”: did you mean *POLYGON*?');

    const short = await address('alice@client.example usdt');
    expect(short.text).toContain('expected 3 values');
  });

  it('explains pending and failed generation in words', async () => {
    const pending = await address('carol+pending@client.example usdt bsc');
    expect(pending.text).toMatch(/Pending: the address is still being generated/);
    const failed = await address('carol+failfail@client.example usdt bsc');
    expect(failed.text).toMatch(/Generation failed: do not use this address/);
  });

  it('refuses people who are not viewers, politely and privately, and admits user-group members', async () => {
    const refused = await address('alice@client.example usdt bsc', USERS.outsider);
    expect(refused.reply.response_type).toBe('ephemeral');
    expect(refused.text).toContain('not allowed to view addresses');
    expect(refused.text).not.toMatch(/```/);
    const grouped = await address('alice@client.example usdt bsc', USERS.groupMember);
    expect(grouped.text).toMatch(/```0x[0-9a-f]{40}```/);
  });

  it('turns wallet-service failures into short useful messages', async () => {
    t.app.sandbox!.injectFault('/api/v1/walletaddress/generate', { kind: 'status', status: 503 }, 10);
    const down = await address('dave@client.example usdt bsc');
    expect(down.text).toMatch(/could not be reached|did not answer/);
    expect(down.text).toContain('Nothing was changed');
    expect(down.text).not.toMatch(/at \w+ \(|Error:|stack/);
  });
});

describe('/address when the service returns an address that does not fit the network', () => {
  const ODD = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
  // A wallet service that logs in and answers every generation "generated" with a Bitcoin address.
  const stub = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/api/v2/auth/login'))
      return void res.end(
        JSON.stringify({
          data: {
            token: 'stub-token-0123456789',
            refreshToken: 'stub-refresh-0123456789',
            expiresAtTimestamp: Date.now() + 3_600_000,
            email: SANDBOX_MERCHANT.email,
          },
          isSuccessful: true,
          httpStatusCode: 200,
        }),
      );
    if (req.url?.startsWith('/api/v1/walletaddress/generate'))
      return void res.end(
        JSON.stringify({
          status: 1,
          message: 'Wallet address generated successfully',
          data: {
            address: ODD,
            merchantClientId: '00000000-0000-4000-8000-000000000001',
            addressGenerationStatus: 1,
            addressGenerationMessage: 'Address generated',
            addressGenerationTransactionHash: null,
          },
        }),
      );
    res.statusCode = 404;
    res.end(JSON.stringify({ status: 0, message: 'Not found', data: 'not here' }));
  });
  let odd: TestApp;
  beforeAll(async () => {
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    odd = await startTestApp({
      env: {
        WALLET_API_BASE_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
        WALLET_API_KEY: SANDBOX_MERCHANT.apiKey,
        WALLET_PUBLIC_KEY: SANDBOX_MERCHANT.publicKey,
        WALLET_MERCHANT_EMAIL: SANDBOX_MERCHANT.email,
        WALLET_MERCHANT_PASSWORD: SANDBOX_MERCHANT.password,
      },
    });
  });
  afterAll(async () => {
    await odd?.stop();
    await new Promise((r) => stub.close(r));
  });

  it('is not shown as ready, not QR-coded, not recorded: status first, logged as a warning', async () => {
    const { responseUrl } = await odd.command('/address', 'alice@client.example usdt bsc', USERS.viewer);
    const [reply] = await odd.replies(responseUrl);
    const text = visibleText(reply!);
    expect(text).toMatch(/^:x: \*Not usable: do not share this address\.\*/);
    expect(text).toContain('unexpected format for BSC (BEP-20)');
    expect(text).not.toContain('Generated');
    expect(text).not.toContain('QR code of the address');
    await new Promise((r) => setTimeout(r, 300));
    expect(odd.fake.files()).toHaveLength(0);
    expect(addressesOf(odd.app.deps.store, 'alice@client.example')).toEqual([]);
    expect(odd.logs()).toContain('returned a deposit address in a format that does not fit its network');
    expect(odd.logs()).not.toContain(SANDBOX_MERCHANT.password);
  });
});
