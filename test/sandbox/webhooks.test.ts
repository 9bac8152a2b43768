import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, webhookChecksum, type Sandbox } from '../../src/sandbox/index.js';
import {
  M,
  WITHDRAW_HEADERS,
  apiKey,
  call,
  generate,
  registerWebhook,
  startReceiver,
  waitFor,
  withdrawRaw,
  type Receiver,
} from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await sb?.close();
  await rx?.close();
  sb = undefined;
  rx = undefined;
});

const fast = { confirmAfterMs: 20, retryBaseMs: 5, maxDelayMs: 40 };

async function setup(webhook: Record<string, unknown> = {}, script: number[] = []) {
  sb = await createSandbox({ ...CANONICAL, seed: false, webhook: { ...fast, ...webhook } });
  rx = await startReceiver(script);
  expect((await registerWebhook(sb, rx.url)).status).toBe(200);
  return { sb, rx };
}

function checksumOk(payload: Record<string, any>): boolean {
  const data = payload.Data ?? payload.data;
  return (data.Checksum ?? data.checksum) === webhookChecksum(data);
}

describe('webhook registration', () => {
  it('registers and replaces the URL, answering the v1 envelope', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false });
    const res = await registerWebhook(sb, 'https://example.test/hook-1');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 1,
      message: expect.any(String),
      data: { webHookUrl: 'https://example.test/hook-1', publicKey: M.publicKey },
    });
    expect(sb.webhook.url()).toBe('https://example.test/hook-1');
    await registerWebhook(sb, 'https://example.test/hook-2');
    expect(sb.webhook.url()).toBe('https://example.test/hook-2');
  });

  it('refuses a missing ApiKey (401), a bad URL or a foreign publicKey (400)', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false });
    const path = '/api/v1/merchant/remittancewebhook';
    expect(
      (await call(sb, 'PUT', path, { body: { webHookUrl: 'https://x.test/h', publicKey: M.publicKey } })).status,
    ).toBe(401);
    const badUrl = await call(sb, 'PUT', path, {
      headers: apiKey(),
      body: { webHookUrl: 'not a url', publicKey: M.publicKey },
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.json).toMatchObject({ status: 0, data: expect.any(String) });
    expect(
      (
        await call(sb, 'PUT', path, {
          headers: apiKey(),
          body: { webHookUrl: 'ftp://x.test/h', publicKey: M.publicKey },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(sb, 'PUT', path, {
          headers: apiKey(),
          body: { webHookUrl: 'https://x.test/h', publicKey: 'pk_nope' },
        })
      ).status,
    ).toBe(400);
    expect((await call(sb, 'PUT', path, { headers: apiKey(), body: { publicKey: M.publicKey } })).status).toBe(400);
    expect(sb.webhook.url()).toBeUndefined();
  });
});

describe('deposit webhooks', () => {
  it('PENDING then CONFIRMED, PascalCase as the public sample, credited on confirmation', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false, webhook: { ...fast, confirmAfterMs: 300 } });
    const s = sb;
    rx = await startReceiver([], () => s.balance('ada@client.test', 'USDT', 'BSC'));
    await registerWebhook(sb, rx.url);
    const address = (await generate(sb, 'ada@client.test', '4', 'BSC')).json.data.address as string;
    const tx = await sb.deposit({ to: 'ada@client.test', amount: '250.123456', currency: 'USDT', network: 'BSC' });
    expect(tx).toMatchObject({
      transactionType: 'Deposit',
      transactionStatus: 'SUCCESSFUL',
      toAddress: address,
      amount: '250.123456',
    });
    // Not credited until it confirms.
    expect(sb.balance('ada@client.test', 'USDT', 'BSC')).toBe('0');
    const r = rx;
    await waitFor(() => r.received.length >= 2, 'PENDING and CONFIRMED');
    expect(rx.received.map((x) => x.probe)).toEqual(['0', '250.123456']);
    expect(sb.balance('ada@client.test', 'USDT', 'BSC')).toBe('250.123456');

    const [pending, confirmed] = rx.received;
    expect(pending!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(pending!.body).TransactionType).toBe(1);
    const d = JSON.parse(pending!.body).Data;
    expect(Object.keys(d)).toEqual([
      'Checksum',
      'Amount',
      'Charge',
      'TotalAmountDeposited',
      'DepositAddress',
      'ReceiveAddress',
      'Currency',
      'NetworkChain',
      'Status',
      'MerchantClient',
      'TransactionHash',
    ]);
    expect(d).toMatchObject({
      Amount: 250.123456,
      Charge: 0,
      TotalAmountDeposited: 250.123456,
      ReceiveAddress: address,
      DepositAddress: tx.fromAddress,
      Currency: 4,
      NetworkChain: 'BSC',
      Status: 2,
      MerchantClient: { Email: 'ada@client.test' },
      TransactionHash: tx.transactionHash,
    });
    expect(d.Checksum).toMatch(/^[0-9A-F]{128}$/);
    expect(pending!.body).toContain('"Amount":250.123456');
    expect(JSON.parse(confirmed!.body).Data.Status).toBe(3);
    expect(checksumOk(pending!.json)).toBe(true);
    expect(checksumOk(confirmed!.json)).toBe(true);
    // Tampering breaks the checksum.
    expect(webhookChecksum({ ...d, Amount: 999 })).not.toBe(d.Checksum);

    // The receiver has answered; the sandbox records each attempt once it reads that answer.
    await waitFor(() => s.webhook.deliveries.length >= 2, 'both deliveries recorded');
    expect(sb.webhook.deliveries.map((x) => [x.status, x.attempt, x.transactionStatus])).toEqual([
      [200, 1, 'PENDING'],
      [200, 1, 'CONFIRMED'],
    ]);
    expect(sb.webhook.deliveries[0]).toMatchObject({ url: rx.url, body: pending!.body });
  });

  it('a FAILED deposit: PENDING then FAILED, listed as FAILED, never credited', async () => {
    const { sb, rx } = await setup();
    const address = (await generate(sb, 'bo@client.test', 'ETH', 'ETH')).json.data.address as string;
    const tx = await sb.deposit({ to: address, amount: '0.5', currency: 'ETH', network: 'ETH', status: 'FAILED' });
    expect(tx.transactionStatus).toBe('FAILED');
    await waitFor(() => rx.received.length >= 2, 'two notifications');
    expect(rx.received.map((r) => JSON.parse(r.body).Data.Status)).toEqual([2, 4]);
    expect(sb.balance('bo@client.test', 'ETH', 'ETH')).toBe('0');
  });
});

describe('withdrawal and remittance webhooks', () => {
  it('a withdrawal sends camelCase WITHDRAW notifications PENDING then CONFIRMED', async () => {
    const { sb, rx } = await setup();
    await generate(sb, 'pay@client.test', '4', 'BSC');
    sb.setBalance('pay@client.test', 'USDT', 'BSC', '100');
    const dest = `0x${'ef'.repeat(20)}`;
    const res = await withdrawRaw(
      sb,
      JSON.stringify({
        amount: 0,
        currency: '4',
        destinationAddress: dest,
        merchantClientEmailAddress: 'pay@client.test',
        networkChain: '1',
        merchantReference: 'wd-1',
        publicKey: M.publicKey,
      }).replace('"amount":0', '"amount":12.5'),
      WITHDRAW_HEADERS,
    );
    expect(res.status).toBe(200);
    await waitFor(() => rx.received.length >= 2, 'two notifications');
    const [p, c] = rx.received.map((r) => JSON.parse(r.body));
    expect(p.transactionType).toBe('WITHDRAW');
    expect(Object.keys(p.data).sort()).toEqual(
      [
        'amountRequested',
        'amountSent',
        'charge',
        'checksum',
        'currency',
        'merchantReference',
        'networkChain',
        'receiverAddress',
        'status',
        'transactionHash',
      ].sort(),
    );
    expect(p.data).toMatchObject({
      receiverAddress: dest,
      amountRequested: 12.5,
      amountSent: 12.5,
      charge: 1,
      currency: 4,
      networkChain: 'BSC',
      status: 2,
      merchantReference: 'wd-1',
    });
    expect(c.data.status).toBe(3);
    expect(checksumOk(p)).toBe(true);
  });

  it('a remittance sends transactionType 5 notifications, over the API and over HTTP', async () => {
    const { sb, rx } = await setup();
    const to = `0x${'12'.repeat(20)}`;
    const r = await sb.remittance({
      to,
      amount: '75.25',
      currency: 'USDT',
      network: 'BSC',
      reference: 'rem-1',
      status: 'FAILED',
    });
    expect(r).toMatchObject({ reference: 'rem-1', receiverAddress: to, amount: '75.25' });
    await waitFor(() => rx.received.length >= 2, 'two notifications');
    const [p, f] = rx.received.map((x) => JSON.parse(x.body));
    expect(p.transactionType).toBe(5);
    expect(Object.keys(p.data).sort()).toEqual(
      [
        'amount',
        'charge',
        'checksum',
        'currency',
        'networkChain',
        'receiverAddress',
        'reference',
        'senderAddress',
        'status',
        'transactionHash',
      ].sort(),
    );
    expect(p.data).toMatchObject({
      amount: 75.25,
      currency: 4,
      networkChain: 'BSC',
      status: 2,
      receiverAddress: to,
      reference: 'rem-1',
    });
    expect(f.data.status).toBe(4);
    expect(checksumOk(f)).toBe(true);

    const http = await call(sb, 'POST', '/sandbox/remittances', {
      body: { to, amount: '1', currency: 'USDT', network: 'BSC' },
    });
    expect(http.status).toBe(201);
    await waitFor(() => rx.received.length >= 4, 'HTTP remittance notifications');
    const bad = await call(sb, 'POST', '/sandbox/remittances', {
      body: { to: 'nope', amount: '1', currency: 'USDT', network: 'BSC' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/to/);
    // Each is in the transaction list as a Withdrawal under its reference (money out), with its own status.
    expect(sb.transactions().map((t) => [t.transactionType, t.reference, t.amount, t.transactionStatus])).toEqual([
      ['Withdrawal', 'rem-1', '75.25', 'FAILED'],
      ['Withdrawal', expect.stringMatching(/^REM-/), '1', 'SUCCESSFUL'],
    ]);
    expect(sb.transactions()[0]).toMatchObject({
      transactionHash: r.transactionHash,
      toAddress: to,
      clientEmail: null,
    });
  });
});

describe('delivery', () => {
  it('retries non-2xx answers with backoff until one succeeds, recording every attempt', async () => {
    const { sb, rx } = await setup({ confirmAfterMs: 60_000 }, [500, 503, 404]);
    await generate(sb, 'r@client.test', '4', 'BSC');
    await sb.deposit({ to: 'r@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await waitFor(() => sb.webhook.deliveries.length >= 4, 'four attempts');
    expect(sb.webhook.deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 404],
      [4, 200],
    ]);
    // One notification: the same body every time.
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
  });

  it('gives up after maxAttempts', async () => {
    const { sb, rx } = await setup({ confirmAfterMs: 60_000, maxAttempts: 3 }, Array(10).fill(500));
    await generate(sb, 'r@client.test', '4', 'BSC');
    await sb.deposit({ to: 'r@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await waitFor(() => sb.webhook.deliveries.length >= 3, 'three attempts');
    // Past the largest possible delay (maxDelayMs 40) there is no fourth attempt.
    await new Promise((r) => setTimeout(r, 200));
    expect(sb.webhook.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(rx.received).toHaveLength(3);
  });

  it('retries network errors, recorded as "error"', async () => {
    sb = await createSandbox({
      ...CANONICAL,
      seed: false,
      webhook: { ...fast, confirmAfterMs: 60_000, maxAttempts: 3 },
    });
    // A port that was free a moment ago: connection refused.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await registerWebhook(sb, `http://127.0.0.1:${port}/hook`);
    await generate(sb, 'n@client.test', '4', 'BSC');
    await sb.deposit({ to: 'n@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    const s = sb;
    await waitFor(() => s.webhook.deliveries.length >= 3, 'three failed attempts');
    expect(s.webhook.deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
    ]);
  });

  it('close() cancels a pending confirmation', async () => {
    const { sb, rx } = await setup({ confirmAfterMs: 50 });
    await generate(sb, 'c@client.test', '4', 'BSC');
    await sb.deposit({ to: 'c@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await sb.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(sb.balance('c@client.test', 'USDT', 'BSC')).toBe('0');
    expect(rx.received.map((r) => JSON.parse(r.body).Data.Status)).not.toContain(3);
  });

  it('close() stops pending retries', async () => {
    const { sb } = await setup({ confirmAfterMs: 60_000, retryBaseMs: 20, maxDelayMs: 20 }, Array(50).fill(500));
    await generate(sb, 'c@client.test', '4', 'BSC');
    await sb.deposit({ to: 'c@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await waitFor(() => sb.webhook.deliveries.length >= 2, 'a retry');
    await sb.close();
    const seen = sb.webhook.deliveries.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(sb.webhook.deliveries.length).toBe(seen);
  });

  it('no signature headers by default', async () => {
    const { sb, rx } = await setup();
    await generate(sb, 's@client.test', '4', 'BSC');
    await sb.deposit({ to: 's@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await waitFor(() => rx.received.length >= 1, 'delivery');
    expect(rx.received[0]!.headers['webhook-signature']).toBeUndefined();
  });

  it.each([
    ['a plain secret', 'plain-signing-secret', Buffer.from('plain-signing-secret')],
    [
      'a whsec_ secret',
      `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
      Buffer.from('0123456789abcdef0123456789abcdef'),
    ],
  ])('Standard Webhooks signature with %s; the id is kept across retries', async (_, secret, key) => {
    const { sb, rx } = await setup({ signingSecret: secret, confirmAfterMs: 60_000 }, [500]);
    await generate(sb, 's@client.test', '4', 'BSC');
    await sb.deposit({ to: 's@client.test', amount: '1', currency: 'USDT', network: 'BSC' });
    await waitFor(() => rx.received.length >= 2, 'retry');
    for (const r of rx.received) {
      const id = r.headers['webhook-id'] as string;
      const ts = r.headers['webhook-timestamp'] as string;
      expect(id).toMatch(/^msg_/);
      expect(ts).toMatch(/^\d{10}$/);
      const expected = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64')}`;
      expect(r.headers['webhook-signature']).toBe(expected);
    }
    expect(rx.received[0]!.headers['webhook-id']).toBe(rx.received[1]!.headers['webhook-id']);
  });
});

describe('simulated deposits over HTTP', () => {
  it('POST /sandbox/deposits to an e-mail or an address creates the record', async () => {
    const { sb, rx } = await setup();
    const address = (await generate(sb, 'h@client.test', 'USDT', 'TRON')).json.data.address as string;
    const byEmail = await call(sb, 'POST', '/sandbox/deposits', {
      body: { to: 'h@client.test', amount: '10.5', currency: 'USDT', network: 'TRON' },
    });
    expect(byEmail.status).toBe(201);
    expect(byEmail.json).toMatchObject({
      toAddress: address,
      amount: '10.5',
      transactionType: 'Deposit',
      transactionStatus: 'SUCCESSFUL',
      network: 'TRON',
      currency: 'USDT',
    });
    const byAddress = await call(sb, 'POST', '/sandbox/deposits', {
      raw: `{"to":"${address}","amount":0.000001}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(byAddress.status).toBe(201);
    expect(byAddress.json.amount).toBe('0.000001');
    expect(sb.transactions()).toHaveLength(2);
    await waitFor(() => rx.received.length >= 4, 'notifications');
    await waitFor(() => sb.balance('h@client.test', 'USDT', 'TRON') === '10.500001', 'credit');
  });

  it('refuses unknown targets (404) and bad input (400) without crashing', async () => {
    const { sb } = await setup();
    await generate(sb, 'h@client.test', 'USDT', 'BSC');
    const cases: Array<[unknown, number]> = [
      [{ to: 'ghost@client.test', amount: '1', currency: 'USDT', network: 'BSC' }, 404],
      [{ to: `0x${'99'.repeat(20)}`, amount: '1', currency: 'USDT', network: 'BSC' }, 404],
      [{ to: 'h@client.test', amount: '-1', currency: 'USDT', network: 'BSC' }, 400],
      [{ to: 'h@client.test', amount: '1.1234567', currency: 'USDT', network: 'BSC' }, 400],
      [{ to: 'h@client.test', amount: '1', currency: 'DOGE', network: 'BSC' }, 400],
      [{ to: 'h@client.test', amount: '1', currency: 'USDT' }, 400],
      [{ to: 'h@client.test', amount: '1', currency: 'USDT', network: 'BSC', status: 'MAYBE' }, 400],
      [{ amount: '1' }, 400],
      [[1, 2], 400],
    ];
    for (const [body, status] of cases) {
      const res = await call(sb, 'POST', '/sandbox/deposits', { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(typeof res.json.error).toBe('string');
    }
    await expect(
      sb.deposit({ to: 'ghost@client.test', amount: '1', currency: 'USDT', network: 'BSC' }),
    ).rejects.toThrow(/ghost/);
    expect(sb.transactions()).toEqual([]);
  });

  it('an address deposit must match the address asset', async () => {
    const { sb } = await setup();
    const address = (await generate(sb, 'h@client.test', 'USDT', 'BSC')).json.data.address as string;
    const res = await call(sb, 'POST', '/sandbox/deposits', {
      body: { to: address, amount: '1', currency: 'BUSD', network: 'BSC' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/USDT on BSC/);
  });
});
