/**
 * Issue 20, point 3: numbers from outside are bounded at the edge (at most 40 significant digits,
 * an exponent within ±40). A webhook beyond that is refused with the reason and stores nothing;
 * a wallet answer beyond that is malformed, like any other schema failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/index.js';
import { webhookAmountProblem } from '../../src/alerts/parse.js';
import { boundedDecimalProblem, OutOfBoundsJson, parseJson, wireDecimal } from '../../src/wallet/json.js';
import type { WalletValidationError } from '../../src/wallet/errors.js';
import { clientFor, loginBody, stubServer, walletError, type StubServer } from '../wallet/helpers.js';
import { depositSample, send, startPipeline, type Pipeline } from './setup.js';

describe('boundedDecimalProblem', () => {
  it('accepts what money needs, at the edges of the bounds', () => {
    for (const ok of ['150.25', '0.000000000000000001', '-5', '0', '0e99999', '1e40', '1e-40', '9'.repeat(40)])
      expect(boundedDecimalProblem(ok), ok).toBeUndefined();
    expect(boundedDecimalProblem(`${'1'.repeat(40)}.000`)).toBeUndefined();
  });
  it('refuses more significant digits or a larger exponent, without echoing the number', () => {
    expect(boundedDecimalProblem('1'.repeat(41))).toMatch(/significant digits/);
    expect(boundedDecimalProblem('1e41')).toMatch(/exponent/);
    expect(boundedDecimalProblem('1e-41')).toMatch(/exponent/);
    expect(boundedDecimalProblem('1e60000')).toMatch(/exponent/);
    expect(boundedDecimalProblem('1'.repeat(200_000))).toMatch(/longer than/);
  });
  it('leaves text that is not a number to the schema', () => {
    expect(boundedDecimalProblem('abc')).toBeUndefined();
    expect(wireDecimal.safeParse('abc').success).toBe(false);
    expect(wireDecimal.safeParse('1e60000').success).toBe(false);
    expect(wireDecimal.safeParse('12.5').success).toBe(true);
  });
  it('parseJson refuses a number literal out of bounds anywhere, with its reason', () => {
    expect(() => parseJson('{"a":{"b":[1e60000]}}')).toThrow(OutOfBoundsJson);
    expect(() => parseJson(`{"a":${'9'.repeat(41)}}`)).toThrow(/significant digits/);
    expect(parseJson('{"a":1.10}')).toBeTruthy();
  });
  it('parseJson refuses more values than the caller allows', () => {
    expect(() => parseJson(`[${Array(11).fill('1').join(',')}]`, { maxValues: 10 })).toThrow(/more than 10 values/);
    expect(parseJson(`[${Array(9).fill('1').join(',')}]`, { maxValues: 10 })).toHaveLength(9);
  });
  it('webhookAmountProblem reads amounts given as text, PascalCase or not, in the body or its data', () => {
    expect(webhookAmountProblem({ Data: { Amount: '1e60000' } })).toMatch(/^amount: .*exponent/);
    expect(webhookAmountProblem({ amount_sent: '1'.repeat(41) })).toMatch(/^amountSent:/);
    expect(webhookAmountProblem({ Data: { Amount: 'not a number', Note: '1e60000' } })).toBeUndefined();
  });
});

describe('a webhook with a number out of bounds', () => {
  let p: Pipeline | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('answers 400 with the reason and stores nothing, as a number or as text, at any depth', async () => {
    p = await startPipeline();
    const bodies = [
      depositSample({ amount: '1e60000' }),
      depositSample({ amount: '"1e60000"' }),
      depositSample({ amount: `"${'7'.repeat(41)}"` }),
      depositSample({ amount: '1e-41' }),
      depositSample({ extra: { Nested: { deep: [1] } } }).replace('[1]', '[1e120000]'),
      depositSample({ extra: { Many: [1] } }).replace('[1]', `[${Array(5000).fill('1.5').join(',')}]`),
    ];
    for (const body of bodies) {
      const r = await send(p.webhookUrl, body);
      expect(r.status, body.slice(0, 80)).toBe(400);
      expect((r.body as { error: string }).error).toMatch(/significant digits|exponent|values/);
    }
    expect(p.store.all(ALERT_COLLECTIONS.events)).toHaveLength(0);
    // Within bounds it is an ordinary alert.
    expect((await send(p.webhookUrl, depositSample({ amount: `"${'1'.repeat(40)}"` }))).status).toBe(200);
  });
});

describe('a wallet answer with a number out of bounds is malformed', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });
  const listing = (amount: string) =>
    `{"data":{"records":[{"transactionStatus":"SUCCESSFUL","transactionType":"Deposit","amount":${amount},` +
    '"currency":"USDT","network":"BSC","transactionTimeStamp":1700000000000}],' +
    '"pageSize":30,"currentPage":1,"totalPages":1,"totalRecords":1},"isSuccessful":true,"message":null,"httpStatusCode":200}';

  for (const amount of ['1e60000', '"1e60000"', `"${'3'.repeat(41)}"`]) {
    it(`amount ${amount.slice(0, 12)}: a response validation error`, async () => {
      stub = await stubServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url.startsWith('/api/v2/auth/login') ? JSON.stringify(loginBody()) : listing(amount));
      });
      const { client } = clientFor(stub);
      const err = await walletError<WalletValidationError>(client.listTransactions(), 'validation');
      expect(err.source).toBe('response');
    });
  }
});
