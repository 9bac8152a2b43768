/**
 * The sandbox's variety (src/sandbox/variety.ts), over raw HTTP: its answers come in the
 * documented alternative forms, the same ones for the same seed, and in one form when off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { varietySeed } from '../../src/sandbox/variety.js';
import { apiKey, bearer, call, M, registerWebhook } from './helpers.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function sandbox(variety: number | 'off'): Promise<Sandbox> {
  const sb = await createSandbox({ seed: false, now: () => NOW, variety });
  open.push(sb);
  sb.resetTransactions([
    { amount: '1.5', currency: 'USDT', network: 'BSC', transactionStatus: 'SUCCESSFUL', transactionType: 'Deposit' },
    { amount: '2', currency: 'ETH', network: 'ETH', transactionStatus: 'FAILED', transactionType: 'Withdrawal' },
  ]);
  return sb;
}

/** A login that reads either key case (variety may answer in PascalCase). */
async function token(sb: Sandbox): Promise<string> {
  const res = await call(sb, 'POST', '/api/v2/auth/login', { body: { email: M.email, password: M.password } });
  const data = res.json.data ?? res.json.Data;
  return data.token ?? data.Token;
}

async function listTexts(sb: Sandbox, n: number): Promise<string[]> {
  const t = await token(sb);
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push((await call(sb, 'GET', '/api/v2/analytics/transaction-record', { headers: bearer(t) })).text);
  return out;
}

describe('sandbox variety', () => {
  it('draws amounts, enums, key case and envelopes from their documented alternatives', async () => {
    const texts = await listTexts(await sandbox(11), 40);
    const all = texts.join('\n');
    expect(all).toMatch(/"amount":1\.5\b/); // a JSON number
    expect(all).toMatch(/"amount":"1\.5"/); // a string of the same digits
    expect(all).toMatch(/"(transactionStatus|TransactionStatus)":1\b/); // the code
    expect(all).toMatch(/"(transactionStatus|TransactionStatus)":"1"/); // the code in a string
    expect(all).toMatch(/"(transactionStatus|TransactionStatus)":"(SUCCESSFUL|Successful|SUCCESS)"/); // a name
    expect(all).toMatch(/"(network|Network)":"ETHEREUM"/); // an alias
    expect(all).toMatch(/"Data":\{"Records"/); // PascalCase keys
    expect(all).toMatch(/"data":\{"records"/); // camelCase keys
    expect(texts.some((t) => !/"message"/i.test(t))).toBe(true); // a v2 envelope without its null message
  });

  it('the webhook registration answers as a v1 or v2 envelope, an empty body or plain text', async () => {
    const sb = await sandbox(3);
    const bodies = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const res = await registerWebhook(sb, `https://treasury.example.test/h/${i}`);
      expect(res.status).toBe(200);
      bodies.add(
        res.text === ''
          ? 'empty'
          : !res.text.startsWith('{')
            ? 'text'
            : /"isSuccessful"/i.test(res.text)
              ? 'v2'
              : `v1 ${/"status":true/i.test(res.text) ? 'true' : /"status":"1"/i.test(res.text) ? '"1"' : '1'}`,
      );
    }
    expect([...bodies].sort()).toEqual(['empty', 'text', 'v1 "1"', 'v1 1', 'v1 true', 'v2']);
  });

  it('a KYB refusal comes as 400, 401, 403 or a 200 that says it failed', async () => {
    const sb = await sandbox(5);
    sb.addMerchant({
      email: 'kyb@v.test',
      password: 'pw',
      apiKey: 'sk_v_kyb_000000',
      publicKey: 'pk_v',
      kyb: 'Rejected',
    });
    const statuses = new Set<number>();
    for (let i = 0; i < 24; i++) {
      const res = await call(sb, 'POST', '/api/v2/auth/login', { body: { email: 'kyb@v.test', password: 'pw' } });
      statuses.add(res.status);
      expect(res.text).toMatch(/"(isSuccessful|IsSuccessful)":false/);
      expect(res.text).toMatch(/"(kybStatus|KybStatus)":("?5"?|"Rejected")/);
    }
    expect([...statuses].sort()).toEqual([200, 400, 401, 403]);
  });

  it('the same seed gives the same answers; another seed other ones', async () => {
    // The forms, not the records' random hashes, addresses and ids.
    const forms = async (seed: number) =>
      (await listTexts(await sandbox(seed), 12)).map((t) =>
        t.replace(/"https?:\/\/[^"]*"|"[^"]*[0-9a-f]{16,}[^"]*"|"[A-Za-z0-9]{20,}"|"\d{4}-\d\d-\d\dT[^"]*"/g, '"x"'),
      );
    const a = await forms(21);
    const b = await forms(21);
    const c = await forms(22);
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('off: the one canonical form, every time', async () => {
    const texts = await listTexts(await sandbox('off'), 10);
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toMatch(/"data":\{"records":\[\{"transactionStatus":"SUCCESSFUL"/);
    expect(texts[0]).toMatch(/"amount":1\.5\b/);
    const sb = open.at(-1)!;
    const res = await call(sb, 'PUT', '/api/v1/merchant/remittancewebhook', {
      headers: apiKey(),
      body: { webHookUrl: 'https://treasury.example.test/h', publicKey: 'pk_sandbox_0123456789abcdef' },
    });
    expect(res.json).toMatchObject({ status: 1 });
  });

  it('SANDBOX_VARIETY_SEED: a number, "off", or unset for the fixed default', () => {
    expect(varietySeed(undefined, undefined)).toBe(1);
    expect(varietySeed(undefined, '42')).toBe(42);
    expect(varietySeed(undefined, 'off')).toBeUndefined();
    expect(varietySeed('off', '42')).toBeUndefined();
    expect(varietySeed(9, 'off')).toBe(9);
  });
});
