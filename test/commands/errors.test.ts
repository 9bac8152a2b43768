/**
 * The wallet-service failures users will meet, as they read them in Slack: short, useful,
 * honest about whether anything changed, never a stack trace or a secret.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp | undefined;
let own: Sandbox | undefined;
afterEach(async () => {
  await t?.stop();
  await own?.close();
  t = undefined;
  own = undefined;
});

async function tx(a: TestApp, text = ''): Promise<string> {
  const { responseUrl } = await a.command('/tx', text, USERS.viewer);
  return visibleText((await a.replies(responseUrl, 1, 10_000))[0]!);
}

function noInternals(text: string): void {
  expect(text).not.toMatch(/\n\s+at |Error:|ZodError|axios|stack/);
  expect(text).not.toContain(SANDBOX_MERCHANT.password);
  expect(text).not.toContain(SANDBOX_MERCHANT.apiKey);
}

describe('errors users will meet', () => {
  it('KYB: the state and what the merchant must do', async () => {
    t = await startTestApp();
    const sb = t.app.sandbox!;
    sb.setKyb(SANDBOX_MERCHANT.email, 'Rejected');
    sb.expireAccessTokens();
    sb.expireRefreshTokens();
    const text = await tx(t);
    expect(text).toContain('KYB verification is *Rejected*');
    expect(text).toContain('resubmit the KYB documents');
    noInternals(text);
  });

  it('credentials rejected: says so and that nothing changed', async () => {
    own = await createSandbox({ seed: true });
    t = await startTestApp({
      env: {
        WALLET_API_BASE_URL: own.url,
        WALLET_API_KEY: SANDBOX_MERCHANT.apiKey,
        WALLET_PUBLIC_KEY: SANDBOX_MERCHANT.publicKey,
        WALLET_MERCHANT_EMAIL: SANDBOX_MERCHANT.email,
        WALLET_MERCHANT_PASSWORD: 'not-the-password-at-all',
      },
    });
    const text = await tx(t);
    expect(text).toContain('the wallet service rejected our credentials');
    expect(text).toContain('Nothing was changed');
    expect(text).not.toContain('not-the-password-at-all');
    noInternals(text);
  });

  it("the service's own 400 message, quoted", async () => {
    t = await startTestApp();
    // Enough for the command even if a background job takes one of them.
    t.app.sandbox!.injectFault('/api/v2/analytics', { kind: 'status', status: 400 }, 20);
    const text = await tx(t);
    expect(text).toMatch(
      /Transaction lookup was refused by the wallet service: “.*Bad Request \(injected by the sandbox\).*”\. Nothing was changed\./,
    );
    noInternals(text);
  });

  it('slow service: did not answer in time, nothing was changed', async () => {
    t = await startTestApp({ env: { WALLET_TIMEOUT_MS: '800' } });
    t.app.sandbox!.injectFault('/api/v2/analytics', { kind: 'delay', ms: 3_000 }, 10);
    const text = await tx(t);
    expect(text).toContain('the wallet service did not answer in time');
    expect(text).toContain('Nothing was changed');
    noInternals(text);
  });

  it('an answer this app cannot read: no validation internals shown', async () => {
    // A wallet service whose transaction list does not have the documented shape.
    const stub = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/api/v2/auth/login')) {
        res.end(
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
      } else {
        res.end(
          JSON.stringify({
            data: { records: [{ amount: 'lots' }], pageSize: 10 },
            isSuccessful: true,
            httpStatusCode: 200,
          }),
        );
      }
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
      t = await startTestApp({
        env: {
          WALLET_API_BASE_URL: url,
          WALLET_API_KEY: SANDBOX_MERCHANT.apiKey,
          WALLET_PUBLIC_KEY: SANDBOX_MERCHANT.publicKey,
          WALLET_MERCHANT_EMAIL: SANDBOX_MERCHANT.email,
          WALLET_MERCHANT_PASSWORD: SANDBOX_MERCHANT.password,
        },
      });
      const text = await tx(t);
      expect(text).toContain('answered in a form this app does not understand');
      expect(text).not.toContain('data.records');
      noInternals(text);
    } finally {
      await t?.stop();
      t = undefined;
      await new Promise((r) => stub.close(r));
    }
  });
});
