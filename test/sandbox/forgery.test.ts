/**
 * The sandbox's test-only forgery controls (src/sandbox/forgery.ts), over HTTP: a forged webhook
 * reaches the registered URL exactly as written and unsigned; the status-by-reference operation
 * says what a test sets, or is unavailable; both accept only JSON posts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiKey, call, registerWebhook, startReceiver, waitFor, type Receiver } from './helpers.js';

/** These tests read the status's wire form (a code), so the sandbox's variety of forms is off. */
const CANONICAL = { variety: 'off' } as const;

let sb: Sandbox | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.close();
  await sb?.close();
  sb = undefined;
  rx = undefined;
});

const statusOf = (s: Sandbox, reference: string) =>
  call(s, 'GET', `/api/merchantClientWithdrawal/status/${reference}`, { headers: apiKey() });

describe('forged webhooks', () => {
  it('posts any JSON, exactly as written and unsigned, to the registered URL; answers what the receiver said', async () => {
    sb = await createSandbox({ seed: false, webhook: { signingSecret: 'whsec_c2VjcmV0' } });
    rx = await startReceiver([202]);
    expect((await registerWebhook(sb, rx.url)).status).toBe(200);
    const raw =
      '{"payload":{"data":{"status":"<!channel>","amountSent":12.345678901234567890123,"merchantReference":"r-1"}}}';
    const res = await call(sb, 'POST', '/sandbox/forged-webhooks', {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ delivered: true, status: 202 });
    const got = await waitFor(() => rx!.received[0], 'the forged post');
    // Digits kept: the receiver gets what the test wrote.
    expect(got.body).toBe(
      '{"data":{"status":"<!channel>","amountSent":12.345678901234567890123,"merchantReference":"r-1"}}',
    );
    expect(got.headers['webhook-signature']).toBeUndefined();
    // In-process too.
    expect(await sb.forgeWebhook([1, 'two'])).toMatchObject({ delivered: true, status: 200 });
  });

  it('says so when no URL is registered', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false });
    const res = await call(sb, 'POST', '/sandbox/forged-webhooks', { body: { payload: {} } });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ delivered: false, error: 'no webhook URL is registered' });
  });
});

describe('the status by reference, set by a test', () => {
  it('answers the status set for a reference, whatever was executed; null restores it', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false });
    expect((await statusOf(sb, 'ref-a')).json.data.withdrawalStatus).toBe(1);
    const set = await call(sb, 'POST', '/sandbox/withdrawal-status', { body: { reference: 'ref-a', status: 3 } });
    expect(set).toMatchObject({ status: 200, json: { reference: 'ref-a', status: 3, unavailable: false } });
    expect((await statusOf(sb, 'ref-a')).json.data.withdrawalStatus).toBe(3);
    await call(sb, 'POST', '/sandbox/withdrawal-status', { body: { reference: 'ref-a', status: null } });
    expect((await statusOf(sb, 'ref-a')).json.data.withdrawalStatus).toBe(1);
  });

  it('is unavailable (503) for one reference, or for all with "*", until turned back on', async () => {
    sb = await createSandbox({ ...CANONICAL, seed: false });
    await call(sb, 'POST', '/sandbox/withdrawal-status', { body: { reference: 'ref-b', unavailable: true } });
    expect((await statusOf(sb, 'ref-b')).status).toBe(503);
    expect((await statusOf(sb, 'ref-c')).status).toBe(200);
    sb.setWithdrawalStatusUnavailable('*', true);
    expect((await statusOf(sb, 'ref-c')).status).toBe(503);
    sb.setWithdrawalStatusUnavailable('*', false);
    await call(sb, 'POST', '/sandbox/withdrawal-status', { body: { reference: 'ref-b', unavailable: false } });
    expect((await statusOf(sb, 'ref-b')).status).toBe(200);
  });
});

describe('test-only endpoints accept only JSON posts', () => {
  for (const path of ['/sandbox/forged-webhooks', '/sandbox/withdrawal-status'])
    it(`${path}: a form post or text is refused by the test endpoints' guard (403), a GET is not a route (405)`, async () => {
      sb = await createSandbox({ ...CANONICAL, seed: false });
      for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
        const res = await call(sb, 'POST', path, { raw: 'reference=x&status=3', headers: { 'content-type': type } });
        expect(res.status, type).toBe(403);
      }
      // No content type at all: refused as well (src/http/same-page.ts).
      expect((await call(sb, 'POST', path, { raw: '{"reference":"x","status":3}' })).status).toBe(403);
      expect((await call(sb, 'GET', path)).status).toBe(405);
      expect((await statusOf(sb, 'x')).json.data.withdrawalStatus).toBe(1);
    });
});
