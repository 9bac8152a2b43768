/**
 * Issue 27: the client reads everything the wallet service may answer, against the sandbox over
 * HTTP with its variety on (src/sandbox/variety.ts): KYB refusals in any status and form, the
 * webhook registration's answers, the transaction statuses of the public SDK, and the ApiKey
 * scheme on the v2 endpoints. Stub servers stand in only for answers the sandbox never gives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { registerWebhook } from '../../src/webhooks/registration.js';
import type { WalletKybError, WalletUnknownOutcomeError } from '../../src/wallet/errors.js';
import { KYB_ADVICE } from '../../src/wallet/enums.js';
import { statusDetail } from '../../src/format/status.js';
import { readAllTransactions } from '../../src/wallet/pager.js';
import {
  clientFor,
  headerOf,
  quietLogger,
  requestsTo,
  sendJson,
  startSandbox,
  stubServer,
  walletError,
  type Sandbox,
} from './helpers.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';

let sb: Sandbox;
beforeAll(async () => {
  // A seed of its own, fixed: the draws below are the same on every run.
  sb = await startSandbox({ seed: false, variety: 7 });
});
afterAll(async () => {
  await sb?.close();
});

describe('KYB-blocked login', () => {
  it.each(['UnVerified', 'Initiated', 'InProgress', 'Rejected'] as const)(
    'KYB %s: recognised in every status and form the sandbox draws, with what to do',
    async (kyb) => {
      const email = `kyb-any-${kyb.toLowerCase()}@sandbox.test`;
      sb.addMerchant({ email, password: 'pw-kyb-any', apiKey: `sk_kyb_any_${kyb}`, publicKey: `pk_${kyb}`, kyb });
      const statuses = new Set<number | undefined>();
      for (let i = 0; i < 16; i++) {
        const { client } = clientFor(sb, { email, password: 'pw-kyb-any' });
        const err = await walletError<WalletKybError>(client.login(), 'kyb');
        expect(err.kybStatus).toBe(kyb);
        expect(err.advice).toBe(KYB_ADVICE[kyb]);
        expect(err.message).toContain(`KYB status is ${kyb}`);
        expect(err.message).not.toMatch(/password/i);
        statuses.add(err.status);
      }
      // 400, 401, 403 and a 200 saying isSuccessful: false all came up.
      expect([...statuses].sort()).toEqual([200, 400, 401, 403]);
    },
  );

  it('the advice follows the spec per state', () => {
    expect(KYB_ADVICE.UnVerified).toMatch(/complete/i);
    expect(KYB_ADVICE.Initiated).toMatch(/wait/i);
    expect(KYB_ADVICE.InProgress).toMatch(/wait/i);
    expect(KYB_ADVICE.Rejected).toMatch(/resubmit/i);
  });

  it.each([
    [400, { data: { kybStatus: 3 }, isSuccessful: false, message: 'Login failed', httpStatusCode: 400 }, 'InProgress'],
    [401, { data: null, kybStatus: '1', isSuccessful: false, message: 'Unauthorized' }, 'UnVerified'],
    [200, { Data: { KybStatus: 'REJECTED' }, IsSuccessful: false, Message: 'Login failed' }, 'Rejected'],
    [403, { data: { kybStatus: 5.0 }, isSuccessful: false, message: null }, 'Rejected'],
  ])('kybStatus in a %i the sandbox does not send (%j) is a KYB block', async (status, body, state) => {
    // Written by hand so that the number 3 reaches the client as lossless-json's exact number.
    const text = JSON.stringify(body).replace('"kybStatus":5', '"kybStatus":5.0');
    const stub = await stubServer((_req, res) => sendJson(res, status, text));
    try {
      const { client } = clientFor(stub);
      const err = await walletError<WalletKybError>(client.login(), 'kyb');
      expect(err.kybStatus).toBe(state);
    } finally {
      await stub.close();
    }
  });

  it('Approved, or a plain wrong password, is not read as KYB', async () => {
    const stub = await stubServer((_req, res) =>
      sendJson(res, 400, { data: { kybStatus: 4 }, isSuccessful: false, message: 'Invalid Login Credentials' }),
    );
    try {
      const { client } = clientFor(stub);
      const err = await walletError(client.login(), 'auth');
      expect(err.message).toContain('Invalid Login Credentials');
    } finally {
      await stub.close();
    }
    const { client } = clientFor(sb, { password: 'wrong-password' });
    await walletError(client.login(), 'auth');
  });
});

describe('webhook registration answers', () => {
  it('every form the sandbox draws (v1 or v2 envelope, status 1/"1"/true, empty, plain text) is a success', async () => {
    const { client } = clientFor(sb);
    for (let i = 0; i < 20; i++) {
      const url = `https://treasury.example.test/webhooks/wallet/round-${i}`;
      await client.setWebhookUrl(url);
      expect(sb.webhook.url()).toBe(url);
    }
    client.close?.();
  });

  it('an answer that cannot be read says the registration may have succeeded, and how to check', async () => {
    const stub = await stubServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Gateway says hello</body></html>');
    });
    const dir = mkdtempSync(join(tmpdir(), 'treasury-reg-'));
    const store = await openStore({ dir });
    try {
      const { client } = clientFor(stub);
      const err = await walletError<WalletUnknownOutcomeError>(
        client.setWebhookUrl('https://treasury.example.test/webhooks/wallet/x'),
        'unknown_outcome',
      );
      expect(err.message).toContain('may have succeeded');
      expect(err.message).toContain("check the webhook URL in the wallet service's dashboard");
      const r = await registerWebhook({
        wallet: client,
        store,
        logger: quietLogger(),
        publicUrl: 'https://treasury.example.test',
        secret: 'reg-secret-0123456789abcdefghijk',
        by: 'test',
      });
      expect(r).toMatchObject({ ok: false, uncertain: true });
      expect(r.error).toContain('may have succeeded');
      expect(r.error).not.toContain('reg-secret');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await stub.close();
    }
  });

  it('a failure envelope (v1 status 0 / v2 isSuccessful false) is a refusal', async () => {
    for (const body of [
      { status: 0, message: 'Invalid URL', data: 'Invalid URL' },
      { status: false, message: 'Invalid URL' },
      { data: null, isSuccessful: false, message: 'Invalid URL', httpStatusCode: 200 },
    ]) {
      const stub = await stubServer((_req, res) => sendJson(res, 200, body));
      try {
        const { client } = clientFor(stub);
        const err = await walletError(client.setWebhookUrl('https://treasury.example.test/h'), 'rejected');
        expect(err.message).toContain('Invalid URL');
      } finally {
        await stub.close();
      }
    }
  });
});

describe('transaction statuses of the public SDK', () => {
  it('Pending 0 and Initiated 3 are read, with their words, and are not final', async () => {
    sb.resetTransactions([
      { amount: '1', transactionStatus: 'PENDING', reference: 'p' },
      { amount: '2', transactionStatus: 'INITIATED', reference: 'i' },
      { amount: '3', transactionStatus: 'SUCCESSFUL', reference: 's' },
      { amount: '4', transactionStatus: 'FAILED', reference: 'f' },
    ]);
    const { client } = clientFor(sb);
    // Read several times: each answer draws its own forms (names, codes, numeric strings).
    for (let i = 0; i < 6; i++) {
      const read = await readAllTransactions(client, {});
      const by = Object.fromEntries(read.records.map((r) => [r.reference, r]));
      expect(by.p).toMatchObject({ status: 'unknown', statusName: 'PENDING', amount: '1' });
      expect(by.i).toMatchObject({ status: 'unknown', statusName: 'INITIATED', amount: '2' });
      expect(by.s).toMatchObject({ status: 'successful', statusName: 'SUCCESSFUL' });
      expect(by.f).toMatchObject({ status: 'failed', statusName: 'FAILED' });
    }
    expect(statusDetail('PENDING')).toBe('pending');
    expect(statusDetail('INITIATED')).toBe('pending: initiated');
    expect(statusDetail('SUCCESSFUL')).toBe('confirmed');
    expect(statusDetail('FAILED')).toBe('failed');
    client.close?.();
  });
});

describe('WALLET_V2_AUTH_SCHEME=ApiKey', () => {
  it("sends the merchant's secret key to the transaction list, as the public SDK does, and never logs in", async () => {
    sb.resetTransactions([{ amount: '1' }]);
    const logins = sb.stats.logins;
    const before = requestsTo(sb, '/api/v2/analytics/transaction-record').length;
    const { client } = clientFor(sb, { v2AuthScheme: 'ApiKey' });
    const page = await client.listTransactions({});
    expect(page.totalRecords).toBe(1);
    const [req] = requestsTo(sb, '/api/v2/analytics/transaction-record').slice(before);
    expect(headerOf(req!.headers, 'authorization')).toBe(`ApiKey ${SANDBOX_MERCHANT.apiKey}`);
    expect(sb.stats.logins).toBe(logins);
    client.close?.();
  });

  it('a refused key is an auth error naming WALLET_API_KEY, not a retry of the login', async () => {
    const logins = sb.stats.logins;
    const { client } = clientFor(sb, { v2AuthScheme: 'ApiKey', apiKey: 'sk_wrong_key_000000000' });
    const err = await walletError(client.listTransactions({}), 'auth');
    expect(err.message).toContain('WALLET_API_KEY');
    expect(sb.stats.logins).toBe(logins);
  });
});
