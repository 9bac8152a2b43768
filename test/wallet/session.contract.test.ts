/**
 * Token lifecycle, KYB, credentials and password reset, against the sandbox.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { KYB_ADVICE } from '../../src/wallet/enums.js';
import type { WalletKybError, WalletRejectedError } from '../../src/wallet/errors.js';
import { clientFor, headerOf, requestsTo, startSandbox, walletError, type Sandbox } from './helpers.js';

const TX = '/api/v2/analytics/transaction-record';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
beforeEach(async () => {
  sb = await startSandbox({ seed: false });
  sb.resetTransactions(Array.from({ length: 3 }, (_, i) => ({ amount: String(i + 1) })));
});
afterEach(async () => {
  await sb.close();
});

describe('login', () => {
  it('logs in on first need, once, and registers the tokens as secrets', async () => {
    const { client, secrets } = clientFor(sb);
    expect(client.authState()).toEqual({ loggedIn: false, email: SANDBOX_MERCHANT.email });
    expect(sb.stats.logins).toBe(0);
    await client.listTransactions();
    await client.listTransactions();
    expect(sb.stats.logins).toBe(1);
    const state = client.authState();
    expect(state.loggedIn).toBe(true);
    expect(state.expiresAt).toBeGreaterThan(Date.now());

    const [login] = requestsTo(sb, '/api/v2/auth/login');
    expect(login!.method).toBe('POST');
    expect(JSON.parse(login!.body)).toEqual({ email: SANDBOX_MERCHANT.email, password: SANDBOX_MERCHANT.password });
    const token = headerOf(requestsTo(sb, TX)[0]!.headers, 'authorization')!.replace(/^Bearer /, '');
    expect(secrets.scrub(`x ${token} y`)).toBe('x [REDACTED] y');
    expect(secrets.scrub(SANDBOX_MERCHANT.password)).toBe('[REDACTED]');
    expect(secrets.scrub(SANDBOX_MERCHANT.apiKey)).toBe('[REDACTED]');
  });

  it('login() returns the session without its tokens', async () => {
    const { client } = clientFor(sb);
    const s = await client.login();
    expect(s.email).toBe(SANDBOX_MERCHANT.email);
    expect(s.roles).toContain('Merchant');
    expect(s.expiresAt).toBeGreaterThan(Date.now());
    expect(JSON.stringify(s)).not.toMatch(/token/i);
  });

  it('a wrong password is an auth error that does not quote the password', async () => {
    const { client } = clientFor(sb, { password: 'wrong-password-123' });
    const err = await walletError(client.login(), 'auth');
    expect(err.message).toContain('Invalid Login Credentials');
    expect(err.message).not.toContain('wrong-password-123');
    const viaCall = await walletError(client.listTransactions(), 'auth');
    expect(viaCall.mayHaveChanged).toBe(false);
    expect(requestsTo(sb, TX)).toHaveLength(0);
  });

  it('an admin account is refused like a wrong password', async () => {
    sb.addMerchant({
      email: 'admin@sandbox.test',
      password: 'admin-password',
      apiKey: 'sk_admin_0000000000',
      publicKey: 'pk_admin_000',
      role: 'Admin',
    });
    const { client } = clientFor(sb, { email: 'admin@sandbox.test', password: 'admin-password' });
    await walletError(client.login(), 'auth');
  });

  it.each(['UnVerified', 'Initiated', 'InProgress', 'Rejected'] as const)(
    'KYB %s blocks login with the right advice',
    async (kyb) => {
      const email = `kyb-${kyb.toLowerCase()}@sandbox.test`;
      sb.addMerchant({
        email,
        password: 'kyb-password',
        apiKey: `sk_kyb_${kyb}_000000`,
        publicKey: `pk_kyb_${kyb}`,
        kyb,
      });
      const { client } = clientFor(sb, { email, password: 'kyb-password' });
      const err = await walletError<WalletKybError>(client.listTransactions(), 'kyb');
      expect(err.kybStatus).toBe(kyb);
      expect(err.advice).toBe(KYB_ADVICE[kyb]);
      expect(err.message).toContain(KYB_ADVICE[kyb]!);
      expect(err.message).toContain(kyb);

      sb.setKyb(email, 'Approved');
      await expect(client.listTransactions()).resolves.toMatchObject({ totalRecords: 0 });
    },
  );
});

describe('token lifecycle', () => {
  it('401 -> one refresh -> one retry, with the refresh request of the choices doc', async () => {
    const { client } = clientFor(sb);
    await client.listTransactions();
    sb.expireAccessTokens();
    const page = await client.listTransactions();
    expect(page.totalRecords).toBe(3);
    expect(sb.stats.refreshes).toBe(1);
    expect(sb.stats.logins).toBe(1);
    expect(requestsTo(sb, TX)).toHaveLength(3);
    const [refresh] = requestsTo(sb, '/api/v2/auth/refreshToken');
    expect(refresh!.method).toBe('POST');
    const body = JSON.parse(refresh!.body) as Record<string, string>;
    expect(body.refreshToken).toBeTruthy();
    expect(body.token).toBe(headerOf(requestsTo(sb, TX)[0]!.headers, 'authorization')!.replace(/^Bearer /, ''));
    // The retry used the new token.
    const tokens = requestsTo(sb, TX).map((r) => headerOf(r.headers, 'authorization'));
    expect(tokens[2]).not.toBe(tokens[1]);
  });

  it('20 concurrent calls that all get 401 share exactly one refresh', async () => {
    const { client } = clientFor(sb);
    await client.listTransactions();
    sb.expireAccessTokens();
    const pages = await Promise.all(Array.from({ length: 20 }, () => client.listTransactions()));
    expect(pages.every((p) => p.totalRecords === 3)).toBe(true);
    expect(sb.stats.refreshes).toBe(1);
    expect(sb.stats.logins).toBe(1);
  });

  it('20 concurrent first calls share exactly one login', async () => {
    const { client } = clientFor(sb);
    await Promise.all(Array.from({ length: 20 }, () => client.listTransactions()));
    expect(sb.stats.logins).toBe(1);
  });

  it('a failed refresh falls back to one re-login', async () => {
    const { client } = clientFor(sb);
    await client.listTransactions();
    sb.expireAccessTokens();
    sb.expireRefreshTokens();
    await expect(client.listTransactions()).resolves.toMatchObject({ totalRecords: 3 });
    expect(sb.stats.logins).toBe(2);
    expect(requestsTo(sb, '/api/v2/auth/refreshToken')).toHaveLength(1);
  });

  it('refresh and re-login both failing is an auth error', async () => {
    const { client } = clientFor(sb);
    await client.listTransactions();
    // Someone else changes the merchant password, then every token dies.
    const { client: other } = clientFor(sb);
    await other.requestPasswordResetOtp(SANDBOX_MERCHANT.email);
    await other.resetPassword({
      email: SANDBOX_MERCHANT.email,
      otp: sb.lastOtp(SANDBOX_MERCHANT.email)!,
      newPassword: 'a-brand-new-password',
    });
    sb.expireAccessTokens();
    sb.expireRefreshTokens();
    const err = await walletError(client.listTransactions(), 'auth');
    expect(err.message).not.toContain(SANDBOX_MERCHANT.password);
    expect(client.authState().loggedIn).toBe(false);
  });

  it('refreshes proactively near expiry instead of waiting for a 401', async () => {
    const { client } = clientFor(sb);
    sb.setTokenLifetime(200);
    await client.listTransactions();
    await sleep(250);
    await client.listTransactions();
    expect(sb.stats.refreshes).toBe(1);
    // Had it sent the expired token first, there would be a third listing request.
    expect(requestsTo(sb, TX)).toHaveLength(2);
  });

  it('refresh() and login() can be forced', async () => {
    const { client } = clientFor(sb);
    await client.login();
    const before = client.authState().expiresAt!;
    const s = await client.refresh();
    expect(sb.stats.refreshes).toBe(1);
    expect(s.expiresAt).toBeGreaterThanOrEqual(before);
    await client.login();
    expect(sb.stats.logins).toBe(2);
  });
});

describe('password reset', () => {
  it('OTP from the sandbox completes the reset; the client then logs in with the new password', async () => {
    const { client } = clientFor(sb);
    await client.requestPasswordResetOtp(SANDBOX_MERCHANT.email);
    const [otpReq] = requestsTo(sb, '/api/v2/auth/password-reset/otp');
    expect(otpReq!.method).toBe('POST');
    expect(JSON.parse(otpReq!.body)).toEqual({ email: SANDBOX_MERCHANT.email });
    const otp = sb.lastOtp(SANDBOX_MERCHANT.email);
    expect(otp).toMatch(/^\d{6}$/);

    await client.resetPassword({ email: SANDBOX_MERCHANT.email, otp: otp!, newPassword: 'new-password-456' });
    const reset = requestsTo(sb, '/api/v2/auth/password-reset').find((r) => !r.path.includes('/otp'));
    expect(JSON.parse(reset!.body)).toEqual({ email: SANDBOX_MERCHANT.email, otp, newPassword: 'new-password-456' });

    await expect(client.login()).resolves.toMatchObject({ email: SANDBOX_MERCHANT.email });
    const { client: stale } = clientFor(sb);
    await walletError(stale.login(), 'auth');
    const { client: fresh } = clientFor(sb, { password: 'new-password-456' });
    await expect(fresh.login()).resolves.toBeTruthy();
  });

  it('a wrong OTP is rejected with the service message and changes nothing', async () => {
    const { client } = clientFor(sb);
    await client.requestPasswordResetOtp(SANDBOX_MERCHANT.email);
    const real = sb.lastOtp(SANDBOX_MERCHANT.email)!;
    const wrong = real === '000000' ? '111111' : '000000';
    const err = await walletError<WalletRejectedError>(
      client.resetPassword({ email: SANDBOX_MERCHANT.email, otp: wrong, newPassword: 'new-password-789' }),
      'rejected',
    );
    expect(err.serviceMessage).toMatch(/OTP/i);
    expect(err.message).not.toContain('new-password-789');
    await expect(client.login()).resolves.toBeTruthy();
  });

  it('refuses a malformed e-mail before sending', async () => {
    const { client } = clientFor(sb);
    await walletError(client.requestPasswordResetOtp('nobody'), 'validation');
    expect(requestsTo(sb, '/api/v2/auth/password-reset')).toHaveLength(0);
  });
});
