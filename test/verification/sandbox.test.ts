/**
 * The sandbox playing the wallet service's side of the verification callback, over HTTP: it
 * asks the merchant before executing, and executes only on isVerified (boolean or "true")
 * with the right checksum. Every refusal leaves balances and the transaction list as they were.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/treasury-app.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';

const hex = (s: string) => createHash('sha512').update(s, 'utf8').digest('hex').toUpperCase();
const checksumFor = (reference: string) => hex(`${hex(SANDBOX_MERCHANT.apiKey)}${reference}:${DEST}`);

let sandbox: Sandbox | undefined;
let merchant: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  await new Promise<void>((r) => (merchant ? merchant.close(() => r()) : r()));
  sandbox = undefined;
  merchant = undefined;
});

/** A merchant server answering each verification call with `answer(reference)`; `queries` holds each call's query. */
const queries: Array<Record<string, string>> = [];
async function merchantAnswering(answer: (reference: string) => { status?: number; body: string }): Promise<string> {
  queries.length = 0;
  merchant = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    queries.push(Object.fromEntries(query));
    const a = answer(query.get('reference') ?? '');
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
    res.end(a.body);
  });
  await new Promise<void>((r) => merchant!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/webhooks/wallet/s3cret/verify`;
}

async function withdraw(sb: Sandbox, reference: string) {
  const res = await fetch(`${sb.url}/api/merchantClientWithdrawal?api-version=1`, {
    method: 'POST',
    headers: {
      authorization: `ApiKey ${SANDBOX_MERCHANT.apiKey}`,
      'content-type': 'application/json-patch+json; ver=1.0',
    },
    body: `{"amount":100,"currency":"USDT","destinationAddress":"${DEST}","merchantClientEmailAddress":"${CLIENT}","networkChain":"BSC","merchantReference":"${reference}","publicKey":"${SANDBOX_MERCHANT.publicKey}"}`,
  });
  return { status: res.status, body: (await res.json()) as { status: number; message: string; data: unknown } };
}

async function start(verificationUrl: string | undefined, verificationFields = false): Promise<Sandbox> {
  // These tests read the sandbox's refusal body as sent (its canonical v1 form): variety off.
  sandbox = await createSandbox({
    seed: false,
    variety: 'off',
    verificationFields,
    ...(verificationUrl ? { verificationUrl } : {}),
  });
  sandbox.setBalance(CLIENT, 'USDT', 'BSC', '1000');
  return sandbox;
}

async function expectRefused(sb: Sandbox, reference: string, why: string) {
  const r = await withdraw(sb, reference);
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ status: 0, message: 'Withdrawal not verified by merchant' });
  expect(String(r.body.data)).toContain(why);
  expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe('1000');
  expect(sb.transactions()).toEqual([]);
  expect(sb.stats.withdrawalsCommitted).toBe(0);
}

describe('sandbox: verification before executing', () => {
  it('executes when the merchant verifies, with isVerified as a boolean or the string "true"', async () => {
    let form: unknown = true;
    const url = await merchantAnswering((ref) => ({
      body: JSON.stringify({ isVerified: form, checksum: checksumFor(ref) }),
    }));
    const sb = await start(url);
    expect((await withdraw(sb, 'ref-bool')).status).toBe(200);
    form = 'true';
    expect((await withdraw(sb, 'ref-string')).status).toBe(200);
    expect(sb.stats.verifications).toEqual([
      { reference: 'ref-bool', verified: true },
      { reference: 'ref-string', verified: true },
    ]);
    expect(sb.transactions().map((t) => t.reference)).toEqual(['ref-bool', 'ref-string']);
  });

  it('refuses a false answer, a wrong checksum, a non-200 and a body that is not JSON', async () => {
    let answer: (ref: string) => { status?: number; body: string } = () => ({
      body: '{"isVerified":false,"checksum":""}',
    });
    const url = await merchantAnswering((ref) => answer(ref));
    const sb = await start(url);
    await expectRefused(sb, 'ref-false', 'isVerified false');
    answer = () => ({ body: JSON.stringify({ isVerified: true, checksum: checksumFor('another-ref') }) });
    await expectRefused(sb, 'ref-checksum', 'checksum does not match');
    // The right reference, but a checksum over another destination: the answer is tied to the address sent.
    const elsewhere = '0x3333333333333333333333333333333333333333';
    answer = (ref) => ({
      body: JSON.stringify({ isVerified: true, checksum: hex(`${hex(SANDBOX_MERCHANT.apiKey)}${ref}:${elsewhere}`) }),
    });
    await expectRefused(sb, 'ref-other-destination', 'checksum does not match');
    answer = (ref) => ({ body: JSON.stringify({ isVerified: 'yes', checksum: checksumFor(ref) }) });
    await expectRefused(sb, 'ref-yes', 'isVerified false');
    answer = (ref) => ({ status: 404, body: JSON.stringify({ isVerified: true, checksum: checksumFor(ref) }) });
    await expectRefused(sb, 'ref-404', 'HTTP 404');
    answer = () => ({ body: 'OK' });
    await expectRefused(sb, 'ref-text', 'not JSON');
  });

  it('refuses when the merchant cannot be reached: the service does not execute what it could not verify', async () => {
    const port = await freePort();
    const sb = await start(`http://127.0.0.1:${port}/webhooks/wallet/s3cret/verify`);
    await expectRefused(sb, 'ref-unreachable', 'could not be reached');
  });

  it('asks with the reference alone, or in the verificationFields mode with the withdrawal as posted', async () => {
    const url = await merchantAnswering((ref) => ({
      body: JSON.stringify({ isVerified: true, checksum: checksumFor(ref) }),
    }));
    expect((await withdraw(await start(url), 'ref-documented')).status).toBe(200);
    await sandbox!.close();
    expect((await withdraw(await start(url, true), 'ref-fields')).status).toBe(200);
    expect(queries).toEqual([
      { reference: 'ref-documented' },
      { reference: 'ref-fields', amount: '100', currency: 'USDT', networkChain: 'BSC', destinationAddress: DEST },
    ]);
  });

  it('without a verification URL, executes as before', async () => {
    const sb = await start(undefined);
    expect((await withdraw(sb, 'ref-plain')).status).toBe(200);
    expect(sb.stats.verifications).toEqual([]);
  });
});
