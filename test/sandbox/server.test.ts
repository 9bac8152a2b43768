import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { SEED_CLIENTS } from '../../src/sandbox/seed.js';
import { apiKey, bearer, call, generate, login } from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox;
beforeEach(async () => {
  sb = await createSandbox({ ...CANONICAL, seed: false, maxBodyBytes: 64 * 1024 });
});
afterEach(async () => {
  await sb.close();
});

describe('HTTP hygiene', () => {
  it('unknown route -> 404 JSON; wrong method -> 405 JSON', async () => {
    const missing = await call(sb, 'GET', '/api/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: 404, title: 'Not Found' });
    const wrong = await call(sb, 'DELETE', '/api/v2/auth/login');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('POST');
    expect(wrong.json.status).toBe(405);
  });

  it('routes match case-insensitively and with a trailing slash', async () => {
    const res = await call(sb, 'POST', '/API/V2/Auth/Login/', {
      body: { email: SANDBOX_MERCHANT.email, password: SANDBOX_MERCHANT.password },
    });
    expect(res.status).toBe(200);
  });

  it('a body over the cap -> 413, and the server keeps serving', async () => {
    const big = JSON.stringify({ email: 'x'.repeat(70 * 1024), password: 'p' });
    const res = await call(sb, 'POST', '/api/v2/auth/login', {
      raw: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.json.isSuccessful).toBe(false);
    expect((await login(sb)).token).toBeTruthy();
  });

  it('a body over the cap without Content-Length (chunked) -> 413', async () => {
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(10 * 1024)));
        controller.close();
      },
    });
    const res = await fetch(`${sb.url}/sandbox/deposits`, {
      method: 'POST',
      body: chunks,
      duplex: 'half',
    } as RequestInit).catch((e: unknown) => e);
    // Either a 413 answer or a closed connection is acceptable for a client still sending; never a 2xx.
    if (res instanceof Response) expect(res.status).toBe(413);
    expect((await login(sb)).token).toBeTruthy();
  });

  it('garbage bodies never crash it', async () => {
    const { token } = await login(sb);
    const bodies = [
      '',
      'null',
      '42',
      '"x"',
      '[]',
      '{',
      '{"a":}',
      '\u0000\u0001',
      '{"email":{"$gt":""},"password":[1]}',
      '{"amount":1e999999}',
    ];
    const targets: Array<[string, string, Record<string, string>]> = [
      ['POST', '/api/v2/auth/login', {}],
      ['POST', '/api/v2/auth/refreshToken', {}],
      ['POST', '/api/v2/auth/password-reset/otp', {}],
      ['POST', '/api/v2/auth/password-reset', {}],
      ['POST', '/api/v1/walletaddress/generate', apiKey()],
      [
        'POST',
        '/api/merchantClientWithdrawal?api-version=1',
        { ...apiKey(), 'content-type': 'application/json-patch+json; ver=1.0' },
      ],
      ['PUT', '/api/v1/merchant/remittancewebhook', apiKey()],
      ['POST', '/sandbox/deposits', {}],
      ['POST', '/sandbox/remittances', {}],
    ];
    for (const [method, path, headers] of targets) {
      for (const raw of bodies) {
        const res = await call(sb, method, path, { raw, headers: { 'content-type': 'application/json', ...headers } });
        expect(res.status, `${path} ${raw}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${path} ${raw}`).toBeLessThan(500);
        expect(res.json, `${path} ${raw}`).toBeTypeOf('object');
      }
    }
    for (const q of ['?Page=%ff', '?PageSize=1e3', '?StartTimeStamp=&EndTimeStamp=', '?Currency[]=1']) {
      const res = await call(sb, 'GET', `/api/v2/analytics/transaction-record${q}`, { headers: bearer(token) });
      expect(res.status, q).toBeLessThan(500);
    }
  });

  it('a malformed HTTP request gets 400 and the server lives on', async () => {
    const port = sb.port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await login(sb)).token).toBeTruthy();
  });

  it('records every request with method, target, headers and raw body', async () => {
    await call(sb, 'POST', '/api/v2/auth/login?x=1', {
      body: { email: 'a@b.test', password: 'pw' },
      headers: { 'x-trace': 't1' },
    });
    const rec = sb.stats.requests.at(-1)!;
    expect(rec).toMatchObject({
      method: 'POST',
      path: '/api/v2/auth/login?x=1',
      body: '{"email":"a@b.test","password":"pw"}',
    });
    expect(rec.headers['x-trace']).toBe('t1');
    expect(sb.stats.logins).toBe(1);
  });
});

describe('fault injection', () => {
  it('status: the next N matching requests get it, then normal service', async () => {
    sb.injectFault('/api/v2/auth/login', { kind: 'status', status: 503 }, 2);
    const body = { email: SANDBOX_MERCHANT.email, password: SANDBOX_MERCHANT.password };
    expect((await call(sb, 'POST', '/api/v2/auth/login', { body })).status).toBe(503);
    // Other paths are unaffected.
    expect((await generate(sb, 'f@client.test', 'USDT', 'BSC')).status).toBe(200);
    expect((await call(sb, 'POST', '/api/v2/auth/login', { body })).status).toBe(503);
    expect((await call(sb, 'POST', '/api/v2/auth/login', { body })).status).toBe(200);
    expect(sb.stats.logins).toBe(3);
  });

  it('status 400 on a v1 endpoint uses its failure envelope', async () => {
    sb.injectFault('/api/v1/walletaddress', { kind: 'status', status: 400 });
    const res = await generate(sb, 'f@client.test', 'USDT', 'BSC');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 0, data: expect.any(String) });
  });

  it('delay: the answer comes late (a client deadline fires first), later requests are prompt', async () => {
    sb.injectFault('/api/v2/auth/login', { kind: 'delay', ms: 5000 });
    const body = JSON.stringify({ email: SANDBOX_MERCHANT.email, password: SANDBOX_MERCHANT.password });
    const slow = fetch(`${sb.url}/api/v2/auth/login`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(100),
    });
    await expect(slow).rejects.toThrow();
    expect((await login(sb)).token).toBeTruthy();
  });

  it('delay shorter than the deadline: still answered correctly', async () => {
    sb.injectFault('/api/v2/auth/login', { kind: 'delay', ms: 30 });
    expect((await login(sb)).token).toBeTruthy();
  });

  it('close() does not wait for a delayed request', async () => {
    sb.injectFault('/api/v2/auth/login', { kind: 'delay', ms: 60_000 });
    const pending = fetch(`${sb.url}/api/v2/auth/login`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await sb.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('rejects nonsense faults', () => {
    expect(() => sb.injectFault('/x', { kind: 'status', status: 42 })).toThrow();
    expect(() => sb.injectFault('/x', { kind: 'status', status: 500 }, 0)).toThrow();
  });
});

describe('seed data', () => {
  const NOW = Date.parse('2025-06-01T00:00:00Z');

  it('is realistic and deterministic, relative to now()', async () => {
    const a = await createSandbox({ ...CANONICAL, now: () => NOW });
    const b = await createSandbox({ ...CANONICAL, now: () => NOW });
    try {
      const txs = a.transactions();
      expect(txs.length).toBeGreaterThanOrEqual(50);
      expect(txs.length).toBeLessThanOrEqual(70);
      expect(b.transactions()).toEqual(txs);
      const sixWeeks = 42 * 24 * 3600_000;
      for (const t of txs) {
        expect(t.transactionTimeStamp).toBeLessThanOrEqual(NOW);
        expect(t.transactionTimeStamp).toBeGreaterThanOrEqual(NOW - sixWeeks);
      }
      expect(new Set(txs.map((t) => t.currency)).size).toBeGreaterThanOrEqual(3);
      expect(new Set(txs.map((t) => t.network)).size).toBeGreaterThanOrEqual(3);
      expect(new Set(txs.map((t) => t.transactionType))).toEqual(new Set(['Deposit', 'Withdrawal']));
      expect(new Set(txs.map((t) => t.transactionStatus))).toEqual(new Set(['SUCCESSFUL', 'FAILED']));
      const clients = new Set(txs.map((t) => t.clientEmail));
      expect(clients.size).toBeGreaterThanOrEqual(4);
      expect(clients.size).toBeLessThanOrEqual(6);
      // Seed clients have addresses and money.
      for (const c of SEED_CLIENTS) expect(Number(a.balance(c, 'USDT', 'BSC'))).toBeGreaterThan(0);
      // And the seeded list is served, most recent first.
      const { token } = await login(a);
      const page = await call(a, 'GET', '/api/v2/analytics/transaction-record', { headers: bearer(token) });
      expect(page.json.data.totalRecords).toBe(txs.length);
      const ts = page.json.data.records.map((r: { transactionTimeStamp: number }) => r.transactionTimeStamp);
      expect(ts).toEqual([...ts].sort((x: number, y: number) => y - x));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('moves with now()', async () => {
    const a = await createSandbox({ ...CANONICAL, now: () => NOW });
    const b = await createSandbox({ ...CANONICAL, now: () => NOW + 1000 });
    try {
      expect(b.transactions()[0]!.transactionTimeStamp - a.transactions()[0]!.transactionTimeStamp).toBe(1000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('seed: false starts empty but with the merchant', async () => {
    expect(sb.transactions()).toEqual([]);
    expect((await login(sb)).token).toBeTruthy();
  });
});
