/**
 * Failures that matter for money: retries only where safe, deadlines, unknown outcomes,
 * exact amounts on the wire, and no secret in logs or error messages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { currency, network } from '../../src/wallet/enums.js';
import type { WalletError, WalletUnavailableError, WalletUnknownOutcomeError } from '../../src/wallet/errors.js';
import { clientFor, headerOf, memoryLogger, requestsTo, startSandbox, walletError, type Sandbox } from './helpers.js';

const ETH = currency('ETH')!;
const ETH_NET = network('ETH')!;
const USDT = currency('USDT')!;
const BSC = network('BSC')!;
const DEST = '0x2222222222222222222222222222222222222222';
const TX = '/api/v2/analytics/transaction-record';
const GEN = '/api/v1/walletaddress/generate';
const WD = '/api/merchantClientWithdrawal';

let sb: Sandbox;
beforeEach(async () => {
  sb = await startSandbox({ seed: false });
});
afterEach(async () => {
  await sb.close();
});

async function funded(overrides: Parameters<typeof clientFor>[1] = {}) {
  const { client } = clientFor(sb, overrides);
  await client.generateAddress({ clientEmail: 'dave@client.test', currency: ETH, network: ETH_NET });
  sb.setBalance('dave@client.test', 'ETH', 'ETH', '100');
  return client;
}

const withdrawal = (merchantReference: string, amount = '1.5') => ({
  amount,
  currency: ETH,
  network: ETH_NET,
  destinationAddress: DEST,
  clientEmail: 'dave@client.test',
  merchantReference,
});

describe('idempotent calls retry', () => {
  it('a read retried after one 503 succeeds on the second request', async () => {
    const { client } = clientFor(sb);
    await client.login();
    sb.injectFault(TX, { kind: 'status', status: 503 }, 1);
    await expect(client.listTransactions()).resolves.toBeTruthy();
    expect(requestsTo(sb, TX)).toHaveLength(2);
  });

  it('address generation is retried after a dropped connection', async () => {
    const { client } = clientFor(sb);
    sb.injectFault(GEN, { kind: 'drop-before-commit' }, 1);
    const a = await client.generateAddress({ clientEmail: 'erin@client.test', currency: USDT, network: BSC });
    expect(a.status).toBe('generated');
    expect(requestsTo(sb, GEN)).toHaveLength(2);
  });

  it('login is retried after a 502', async () => {
    const { client } = clientFor(sb);
    sb.injectFault('/api/v2/auth/login', { kind: 'status', status: 502 }, 1);
    await expect(client.login()).resolves.toBeTruthy();
    expect(sb.stats.logins).toBe(2);
  });

  it('the webhook PUT is retried after a 500', async () => {
    const { client } = clientFor(sb);
    sb.injectFault('/api/v1/merchant/remittancewebhook', { kind: 'status', status: 500 }, 1);
    await client.setWebhookUrl('https://hooks.example.test/x');
    expect(sb.webhook.url()).toBe('https://hooks.example.test/x');
    expect(requestsTo(sb, '/api/v1/merchant/remittancewebhook')).toHaveLength(2);
  });

  it('gives up after readRetries with an unavailable error that says nothing changed', async () => {
    const { client } = clientFor(sb, { readRetries: 2 });
    await client.login();
    sb.injectFault(TX, { kind: 'status', status: 503 }, 10);
    const err = await walletError<WalletUnavailableError>(client.listTransactions(), 'unavailable');
    expect(err.reason).toBe('server');
    expect(err.attempts).toBe(3);
    expect(err.status).toBe(503);
    expect(err.mayHaveChanged).toBe(false);
    expect(err.message).toMatch(/Nothing was changed/);
    expect(requestsTo(sb, TX)).toHaveLength(3);
  });

  it('a 4xx is not retried', async () => {
    const { client } = clientFor(sb);
    sb.injectFault(TX, { kind: 'status', status: 400 });
    await walletError(client.listTransactions(), 'rejected');
    expect(requestsTo(sb, TX)).toHaveLength(1);
  });
});

describe('deadline', () => {
  it('a read slower than timeoutMs fails as unavailable/timeout', async () => {
    const { client } = clientFor(sb, { timeoutMs: 300 });
    await client.login();
    sb.injectFault(TX, { kind: 'delay', ms: 5_000 }, 5);
    const err = await walletError<WalletUnavailableError>(client.listTransactions(), 'unavailable');
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/no answer within 300 ms/);
  });

  it('the deadline covers the login made on the way', async () => {
    const { client } = clientFor(sb, { timeoutMs: 300 });
    sb.injectFault('/api/v2/auth/login', { kind: 'delay', ms: 5_000 }, 5);
    const err = await walletError<WalletUnavailableError>(client.listTransactions(), 'unavailable');
    expect(err.reason).toBe('timeout');
  });

  it('connection refused is unavailable and says nothing was sent', async () => {
    const url = sb.url;
    await sb.close();
    const { client } = clientFor({ url }, { readRetries: 1 });
    const err = await walletError<WalletUnavailableError>(client.listTransactions(), 'unavailable');
    expect(err.reason).toBe('network');
    expect(err.code).toBe('ECONNREFUSED');
    const w = await walletError<WalletUnavailableError>(client.withdraw(withdrawal('ref-refused')), 'unavailable');
    expect(w.message).toMatch(/Nothing was sent/);
    sb = await startSandbox({ seed: false }); // for afterEach
  });
});

describe('withdrawal is never resent', () => {
  it('connection dropped after the sandbox committed -> unknown_outcome, one request, money moved', async () => {
    const client = await funded();
    sb.injectFault(WD, { kind: 'drop-after-commit' }, 1);
    const err = await walletError<WalletUnknownOutcomeError>(
      client.withdraw(withdrawal('ref-dropped')),
      'unknown_outcome',
    );
    expect(err.mayHaveChanged).toBe(true);
    expect(err.merchantReference).toBe('ref-dropped');
    expect(err.message).toMatch(/may have moved/);
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.stats.withdrawalsCommitted).toBe(1);
    expect(sb.transactions().filter((t) => t.reference === 'ref-dropped')).toHaveLength(1);
    // The reconciliation path: the transaction list shows it.
    const page = await client.listTransactions({ type: 'withdrawal' });
    expect(page.records.some((r) => r.reference === 'ref-dropped')).toBe(true);
  });

  it('connection dropped before commit is still unknown_outcome (the client cannot tell) and not resent', async () => {
    const client = await funded();
    sb.injectFault(WD, { kind: 'drop-before-commit' }, 1);
    await walletError(client.withdraw(withdrawal('ref-lost')), 'unknown_outcome');
    expect(sb.stats.withdrawals).toBe(1);
    expect(sb.stats.withdrawalsCommitted).toBe(0);
  });

  it('a 5xx is unknown_outcome, not retried', async () => {
    const client = await funded();
    sb.injectFault(WD, { kind: 'status', status: 503 }, 3);
    const err = await walletError(client.withdraw(withdrawal('ref-503')), 'unknown_outcome');
    expect(err.status).toBe(503);
    expect(requestsTo(sb, WD)).toHaveLength(1);
  });

  it('any non-2xx other than the documented refusals (400, 401, 403) is unknown_outcome, not retried', async () => {
    const client = await funded();
    // A redirect after processing, a "duplicate reference" conflict, a proxy's timeout or rate limit:
    // each may follow a real payout, so none may be read as "nothing was sent".
    for (const status of [303, 404, 408, 409, 422, 429]) {
      sb.injectFault(WD, { kind: 'status', status }, 1);
      const err = await walletError(client.withdraw(withdrawal(`ref-${status}`)), 'unknown_outcome');
      expect(err.status).toBe(status);
      expect(err.mayHaveChanged).toBe(true);
    }
    expect(requestsTo(sb, WD)).toHaveLength(6);
    // The documented refusal stays a refusal: the sandbox's own 400 for an unknown client.
    const refused = await walletError(
      client.withdraw({ ...withdrawal('ref-400'), clientEmail: 'nobody@client.example' }),
      'rejected',
    );
    expect(refused.mayHaveChanged).toBe(false);
  });

  it('a timeout is unknown_outcome, not retried', async () => {
    const client = await funded({ timeoutMs: 300 });
    sb.injectFault(WD, { kind: 'delay', ms: 3_000 }, 3);
    await walletError(client.withdraw(withdrawal('ref-slow')), 'unknown_outcome');
    expect(requestsTo(sb, WD)).toHaveLength(1);
  });
});

describe('exact amounts', () => {
  it('an 18-decimal ETH amount arrives with exactly its digits', async () => {
    const client = await funded();
    const exact = '12.345678901234567891'; // JSON.parse would make this 12.345678901234567
    const res = await client.withdraw(withdrawal('ref-digits', exact));
    const [req] = requestsTo(sb, WD);
    expect(req!.body).toMatch(/"amount":12\.345678901234567891[,}]/);
    expect(res.amount).toBe(exact);
    expect(res.amountRequested).toBe(exact);
    expect(sb.transactions().find((t) => t.reference === 'ref-digits')!.amount).toBe(exact);
    // One digit more than ETH carries is refused before sending.
    await walletError(client.withdraw(withdrawal('ref-digits-19', '1.1234567890123456789')), 'validation');
    expect(requestsTo(sb, WD)).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('a full run logs none of the API key, password, tokens, OTP or new password', async () => {
    const { logger, text } = memoryLogger('debug');
    const client = await funded({ logger });
    const errors: WalletError[] = [];
    const keep = (p: Promise<unknown>) => p.catch((e: WalletError) => void errors.push(e));

    await client.login();
    await client.listTransactions({ currency: ETH });
    sb.expireAccessTokens();
    await client.listTransactions();
    sb.expireAccessTokens();
    sb.expireRefreshTokens();
    await client.listTransactions();
    await client.setWebhookUrl('https://hooks.example.test/wallet/path');
    await client.withdraw(withdrawal('ref-log-1'));
    await keep(client.withdraw(withdrawal('ref-log-1'))); // reused reference: rejected
    sb.injectFault(WD, { kind: 'drop-after-commit' }, 1);
    await keep(client.withdraw(withdrawal('ref-log-2')));
    sb.injectFault(TX, { kind: 'status', status: 503 }, 1);
    await client.listTransactions();
    await client.requestPasswordResetOtp(SANDBOX_MERCHANT.email);
    const otp = sb.lastOtp(SANDBOX_MERCHANT.email)!;
    await client.resetPassword({ email: SANDBOX_MERCHANT.email, otp, newPassword: 'log-test-new-password' });
    await keep(client.resetPassword({ email: SANDBOX_MERCHANT.email, otp, newPassword: 'log-test-other-password' }));
    await client.login();
    const { client: bad } = clientFor(sb, {
      logger,
      password: 'wrong-password-in-logs',
      apiKey: 'sk_wrong_in_logs_123',
    });
    await keep(bad.login());
    await keep(bad.generateAddress({ clientEmail: 'x@client.test', currency: USDT, network: BSC }));

    expect(errors.map((e) => e.kind).sort()).toEqual(['auth', 'auth', 'rejected', 'rejected', 'unknown_outcome']);

    const secrets = new Set<string>([
      SANDBOX_MERCHANT.apiKey,
      SANDBOX_MERCHANT.password,
      'log-test-new-password',
      'log-test-other-password',
      'wrong-password-in-logs',
      'sk_wrong_in_logs_123',
      otp,
    ]);
    for (const r of sb.stats.requests) {
      const auth = headerOf(r.headers, 'authorization');
      if (auth) secrets.add(auth.split(' ')[1]!);
      if (r.path.toLowerCase().startsWith('/api/v2/auth/refreshtoken')) {
        const body = JSON.parse(r.body) as Record<string, string>;
        secrets.add(body.refreshToken!);
        secrets.add(body.token!);
      }
    }
    expect(secrets.size).toBeGreaterThan(8); // tokens were collected
    const logs = text();
    expect(logs).toContain('wallet call'); // the capture works
    for (const s of secrets) {
      expect(logs, 'a secret leaked into the logs').not.toContain(s);
      for (const e of errors) {
        expect(e.message, 'a secret leaked into an error message').not.toContain(s);
        expect(JSON.stringify(e)).not.toContain(s);
      }
    }
  });
});
