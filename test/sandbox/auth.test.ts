import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { SecretRegistry } from '../../src/secrets.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { M, apiKey, bearer, call, expectProblem401, login } from './helpers.js';

/**
 * These tests read the sandbox's wire format itself (the spec's canonical forms), so its variety
 * (src/sandbox/variety.ts: alternative forms at random) is off here; test/sandbox/variety.test.ts
 * checks the alternatives, and every client test runs against them.
 */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox;
let clock: number;

beforeEach(async () => {
  clock = Date.parse('2025-03-01T12:00:00Z');
  sb = await createSandbox({ ...CANONICAL, seed: false, now: () => clock });
});
afterEach(async () => {
  await sb.close();
});

const LIST = '/api/v2/analytics/transaction-record';

describe('merchant login', () => {
  it('returns the v2 session envelope', async () => {
    const res = await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ isSuccessful: true, httpStatusCode: 200 });
    expect('message' in res.json).toBe(true);
    const d = res.json.data;
    expect(d).toMatchObject({ email: M.email, businessName: expect.any(String), roles: ['Merchant'] });
    expect(typeof d.token).toBe('string');
    expect(typeof d.refreshToken).toBe('string');
    expect(d.token).not.toBe(d.refreshToken);
    expect(d.expiresAtTimestamp).toBe(clock + 2 * 3600_000);
    expect(sb.stats.logins).toBe(1);
  });

  it('treats the e-mail case-insensitively', async () => {
    await expect(login(sb, M.email.toUpperCase())).resolves.toMatchObject({ token: expect.any(String) });
  });

  it.each([
    ['unknown e-mail', 'nobody@sandbox.test', M.password],
    ['wrong password', M.email, 'wrong-password'],
  ])('%s -> 400 Invalid Login Credentials', async (_, email, password) => {
    const res = await call(sb, 'POST', '/api/v2/auth/login', { body: { email, password } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      data: null,
      isSuccessful: false,
      message: 'Invalid Login Credentials',
      httpStatusCode: 400,
    });
  });

  it('refuses an admin account with the same 400', async () => {
    sb.addMerchant({
      email: 'admin@sandbox.test',
      password: 'admin-password',
      apiKey: 'sk_admin_000000',
      publicKey: 'pk_admin_000000',
      role: 'Admin',
    });
    const res = await call(sb, 'POST', '/api/v2/auth/login', {
      body: { email: 'admin@sandbox.test', password: 'admin-password' },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('Invalid Login Credentials');
  });

  it.each(['UnVerified', 'Initiated', 'InProgress', 'Rejected'])('KYB %s -> 403 naming the state', async (kyb) => {
    sb.addMerchant({
      email: 'kyb@sandbox.test',
      password: 'kyb-password',
      apiKey: 'sk_kyb_000000',
      publicKey: 'pk_kyb_000000',
      kyb: kyb as never,
    });
    const res = await call(sb, 'POST', '/api/v2/auth/login', {
      body: { email: 'kyb@sandbox.test', password: 'kyb-password' },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ isSuccessful: false, httpStatusCode: 403, data: { kybStatus: kyb } });
    expect(res.json.message).toContain(kyb);
  });

  it('setKyb blocks and unblocks login', async () => {
    sb.setKyb(M.email, 'InProgress');
    expect(
      (await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } })).status,
    ).toBe(403);
    sb.setKyb(M.email, 'Approved');
    expect(
      (await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } })).status,
    ).toBe(200);
  });

  it('rejects a malformed body with a v2 400', async () => {
    const res = await call(sb, 'POST', '/api/v2/auth/login', {
      raw: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ isSuccessful: false, httpStatusCode: 400 });
    const missing = await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email } });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toMatch(/password/);
  });

  it('admin login is outside the sandbox: 404', async () => {
    const res = await call(sb, 'POST', '/api/v2/auth/admin/login', { body: { email: M.email, password: M.password } });
    expect(res.status).toBe(404);
  });
});

describe('access tokens', () => {
  it('a v2 endpoint needs a valid Bearer token, else a 401 problem', async () => {
    expectProblem401(await call(sb, 'GET', LIST));
    expectProblem401(await call(sb, 'GET', LIST, { headers: bearer('not-a-token') }));
    expectProblem401(await call(sb, 'GET', LIST, { headers: { authorization: 'Basic abc' } }));
    const { token } = await login(sb);
    expect((await call(sb, 'GET', LIST, { headers: bearer(token) })).status).toBe(200);
  });

  it('the transaction listing also accepts ApiKey, and refuses a wrong one', async () => {
    expect((await call(sb, 'GET', LIST, { headers: apiKey() })).status).toBe(200);
    expectProblem401(await call(sb, 'GET', LIST, { headers: apiKey('sk_wrong') }));
  });

  it('expires at expiresAtTimestamp', async () => {
    const { token, expiresAtTimestamp } = await login(sb);
    clock = expiresAtTimestamp - 1;
    expect((await call(sb, 'GET', LIST, { headers: bearer(token) })).status).toBe(200);
    clock = expiresAtTimestamp;
    expectProblem401(await call(sb, 'GET', LIST, { headers: bearer(token) }));
  });

  it('setTokenLifetime applies to tokens issued afterwards', async () => {
    sb.setTokenLifetime(1000);
    const { token, expiresAtTimestamp } = await login(sb);
    expect(expiresAtTimestamp).toBe(clock + 1000);
    clock += 1000;
    expectProblem401(await call(sb, 'GET', LIST, { headers: bearer(token) }));
  });

  it('expireAccessTokens makes every issued token answer 401, new logins work', async () => {
    const a = await login(sb);
    const b = await login(sb);
    sb.expireAccessTokens();
    expectProblem401(await call(sb, 'GET', LIST, { headers: bearer(a.token) }));
    expectProblem401(await call(sb, 'GET', LIST, { headers: bearer(b.token) }));
    const c = await login(sb);
    expect((await call(sb, 'GET', LIST, { headers: bearer(c.token) })).status).toBe(200);
  });
});

describe('refresh', () => {
  const refresh = (refreshToken: string, token?: string) =>
    call(sb, 'POST', '/api/v2/auth/refreshToken', { body: { refreshToken, ...(token ? { token } : {}) } });

  it('exchanges a refresh token for a new session shaped like login', async () => {
    const first = await login(sb);
    sb.expireAccessTokens();
    const res = await refresh(first.refreshToken, first.token);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      isSuccessful: true,
      httpStatusCode: 200,
      data: { email: M.email, roles: ['Merchant'] },
    });
    expect(res.json.data.token).not.toBe(first.token);
    expect((await call(sb, 'GET', LIST, { headers: bearer(res.json.data.token) })).status).toBe(200);
    expect(sb.stats.refreshes).toBe(1);
  });

  it('rotates: a used refresh token is refused', async () => {
    const first = await login(sb);
    expect((await refresh(first.refreshToken)).status).toBe(200);
    const again = await refresh(first.refreshToken);
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ isSuccessful: false, message: 'Invalid refresh token' });
  });

  it('an unknown or expired refresh token gets 400 Invalid refresh token', async () => {
    expect((await refresh('nope')).json.message).toBe('Invalid refresh token');
    const s = await login(sb);
    sb.expireRefreshTokens();
    const res = await refresh(s.refreshToken);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('Invalid refresh token');
  });

  it('a refresh token lives refreshTokenLifetimeMs', async () => {
    await sb.close();
    sb = await createSandbox({ ...CANONICAL, seed: false, now: () => clock, refreshTokenLifetimeMs: 5000 });
    const s = await login(sb);
    clock += 5000;
    expect((await refresh(s.refreshToken)).status).toBe(400);
  });
});

describe('password reset', () => {
  it('OTP request, completion, new password works and the old one does not', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: new SecretRegistry(),
      destination: new Writable({
        write: (chunk, _e, cb) => {
          lines.push(String(chunk));
          cb();
        },
      }),
    });
    await sb.close();
    sb = await createSandbox({ ...CANONICAL, seed: false, now: () => clock, logger });

    const req = await call(sb, 'POST', '/api/v2/auth/password-reset/otp', { body: { email: M.email } });
    expect(req.status).toBe(200);
    expect(req.json).toMatchObject({ isSuccessful: true, data: null });
    const otp = sb.lastOtp(M.email);
    expect(otp).toMatch(/^\d{6}$/);
    await new Promise((r) => setTimeout(r, 20));
    expect(lines.join('')).toContain(otp);

    const wrong = await call(sb, 'POST', '/api/v2/auth/password-reset', {
      body: { email: M.email, otp: otp === '000000' ? '111111' : '000000', newPassword: 'brand-new-password' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ isSuccessful: false, httpStatusCode: 400 });

    const done = await call(sb, 'POST', '/api/v2/auth/password-reset', {
      body: { email: M.email, otp, newPassword: 'brand-new-password' },
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ isSuccessful: true, data: null });

    expect(
      (await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } })).status,
    ).toBe(400);
    await expect(login(sb, M.email, 'brand-new-password')).resolves.toBeTruthy();

    // Single use.
    const replay = await call(sb, 'POST', '/api/v2/auth/password-reset', {
      body: { email: M.email, otp, newPassword: 'another-password' },
    });
    expect(replay.status).toBe(400);
  });

  it('an OTP expires after 10 minutes', async () => {
    await call(sb, 'POST', '/api/v2/auth/password-reset/otp', { body: { email: M.email } });
    const otp = sb.lastOtp(M.email)!;
    clock += 10 * 60_000;
    const res = await call(sb, 'POST', '/api/v2/auth/password-reset', {
      body: { email: M.email, otp, newPassword: 'brand-new-password' },
    });
    expect(res.status).toBe(400);
    expect(
      (await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } })).status,
    ).toBe(200);
  });

  it('an OTP is still good just before 10 minutes', async () => {
    await call(sb, 'POST', '/api/v2/auth/password-reset/otp', { body: { email: M.email } });
    clock += 10 * 60_000 - 1;
    const res = await call(sb, 'POST', '/api/v2/auth/password-reset', {
      body: { email: M.email, otp: sb.lastOtp(M.email), newPassword: 'brand-new-password' },
    });
    expect(res.status).toBe(200);
  });

  it('an unknown e-mail gets the same answer and no OTP', async () => {
    const res = await call(sb, 'POST', '/api/v2/auth/password-reset/otp', { body: { email: 'ghost@sandbox.test' } });
    expect(res.status).toBe(200);
    expect(sb.lastOtp('ghost@sandbox.test')).toBeUndefined();
  });
});
