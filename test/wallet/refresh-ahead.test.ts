/**
 * The session token is refreshed in the background before it expires, so a call (and a
 * command) after that point finds a fresh token and sends no login or refresh of its own.
 * Counted at the sandbox, over HTTP.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AHEAD_RETRY_MS, MIN_AHEAD_DELAY_MS } from '../../src/wallet/session.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { clientFor, headerOf, requestsTo, startSandbox, type Sandbox } from './helpers.js';

const TX = '/api/v2/analytics/transaction-record';
const HOURS_2 = 2 * 3_600_000;

let sb: Sandbox | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await sb?.close();
  sb = undefined;
  await t?.stop();
  t = undefined;
});

describe('refresh ahead of expiry', () => {
  it('refreshes in the background; the next call sends no login or refresh and uses the new token', async () => {
    sb = await startSandbox({ seed: false });
    const sandbox = sb;
    const { client } = clientFor(sandbox, { refreshAhead: true });
    sandbox.setTokenLifetime(1_500);
    await client.login();
    const first = client.authState().expiresAt!;
    // Tokens issued from now on live long: the background refresh gets one.
    sandbox.setTokenLifetime(HOURS_2);
    // The sandbox counts a refresh when it arrives; the client has it once its token changed.
    await until('the background refresh', () => (client.authState().expiresAt ?? 0) > first, 5_000);
    expect(sandbox.stats.refreshes).toBe(1);
    expect(sandbox.stats.logins).toBe(1);

    await client.listTransactions();
    expect(sandbox.stats.logins).toBe(1);
    expect(sandbox.stats.refreshes).toBe(1);
    expect(headerOf(requestsTo(sandbox, TX)[0]!.headers, 'authorization')).toMatch(/^Bearer sbx_at_/);
    client.close?.();
  });

  it('without refreshAhead (the default) nothing happens in the background', async () => {
    sb = await startSandbox({ seed: false });
    const sandbox = sb;
    const { client } = clientFor(sandbox);
    sandbox.setTokenLifetime(300);
    await client.login();
    // Past the point where the background refresh would have run (4/5 of the lifetime), and past expiry.
    await new Promise((r) => setTimeout(r, 400));
    expect(sandbox.stats.refreshes).toBe(0);
  });

  it('a command after the refresh point does not log in or refresh on its way (signed /tx through the app)', async () => {
    t = await startTestApp({ sandbox: { tokenLifetimeMs: 1_500 } });
    const app = t;
    const sandbox = app.app.sandbox!;
    await app.app.deps.wallet.login();
    sandbox.setTokenLifetime(HOURS_2);
    await until(
      'a refreshed long-lived token',
      () => sandbox.stats.refreshes >= 1 && (app.app.deps.wallet.authState().expiresAt ?? 0) > Date.now() + 3_600_000,
      8_000,
    );
    const logins = sandbox.stats.logins;
    const refreshes = sandbox.stats.refreshes;
    const listings = requestsTo(sandbox, TX).length;

    const { res, responseUrl } = await app.command('/tx', 'currency=USDT', USERS.viewer);
    expect(res.status).toBe(200);
    await app.replies(responseUrl);
    expect(requestsTo(sandbox, TX).length).toBeGreaterThan(listings);
    expect(sandbox.stats.logins).toBe(logins);
    expect(sandbox.stats.refreshes).toBe(refreshes);
  });
});

/**
 * Only the session's timer is faked (setTimeout/clearTimeout); HTTP to the sandbox is real, so
 * `settled` waits, with real time, until the requests a fired timer started have come back.
 */
async function settled(ok: () => boolean = () => false, realMs = 300): Promise<void> {
  const deadline = Date.now() + realMs;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
}

describe('refresh ahead of expiry, when the token or the service misbehaves (controlled timer)', () => {
  it('a token already expired by our clock is not refreshed in a loop: at most one refresh per 30 s', async () => {
    sb = await startSandbox({ seed: false });
    const sandbox = sb;
    const { client } = clientFor(sandbox, { refreshAhead: true });
    sandbox.setTokenLifetime(-5_000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await client.login();
    expect(sandbox.stats.logins).toBe(1);
    await vi.advanceTimersByTimeAsync(MIN_AHEAD_DELAY_MS - 1_000);
    await settled();
    expect(sandbox.stats.refreshes).toBe(0);
    // Five minutes in 30-second steps: never more than one refresh a step.
    for (let step = 1; step <= 10; step++) {
      await vi.advanceTimersByTimeAsync(MIN_AHEAD_DELAY_MS);
      await settled(() => sandbox.stats.refreshes >= step);
      expect(sandbox.stats.refreshes).toBeLessThanOrEqual(step);
    }
    expect(sandbox.stats.refreshes).toBeGreaterThanOrEqual(1);
    // A refresh the sandbox refuses falls back to a login: still at most one of each a step.
    expect(sandbox.stats.logins).toBeLessThanOrEqual(1 + 10);
    client.close?.();
  });

  it('when the background refresh and the login both fail, keeps the token still valid and tries again a minute later', async () => {
    sb = await startSandbox({ seed: false });
    const sandbox = sb;
    const { client } = clientFor(sandbox, { refreshAhead: true });
    sandbox.setTokenLifetime(10 * 60_000); // refreshed ahead two minutes before expiry
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await client.login();
    const kept = client.authState().expiresAt!;
    sandbox.injectFault('/api/v2/auth/refreshToken', { kind: 'status', status: 401 }, 1);
    sandbox.injectFault('/api/v2/auth/login', { kind: 'status', status: 401 }, 1);
    await vi.advanceTimersByTimeAsync(8 * 60_000);
    await settled(() => sandbox.stats.logins >= 2);
    await settled();
    expect(sandbox.stats.refreshes).toBe(1);
    expect(sandbox.stats.logins).toBe(2);
    expect(client.authState()).toMatchObject({ loggedIn: true, expiresAt: kept });
    // A call meanwhile uses the kept token: no login or refresh of its own.
    await client.listTransactions();
    expect(sandbox.stats.logins).toBe(2);
    expect(sandbox.stats.refreshes).toBe(1);
    // About a minute later the background refresh is tried again, and works.
    await vi.advanceTimersByTimeAsync(AHEAD_RETRY_MS);
    await settled(() => (client.authState().expiresAt ?? 0) > kept, 3_000);
    expect(sandbox.stats.refreshes).toBe(2);
    expect(client.authState().expiresAt).toBeGreaterThan(kept);
    client.close?.();
  });
});
