/**
 * Balances of the merchant's origin accounts (public-facts.md, "Operations the spec does not
 * list"): `GET /api/v1/walletBalance/originAccounts?publicKey=`, ApiKey auth, v1 envelope with
 * an array of `{ currency | key, networkChain, balance }`. A read, so retried.
 *
 * Tolerant where the shape is unpublished: the currency in `currency` or `key`, currency and
 * network as codes, numeric strings or names; the balance as a JSON number or text, kept exact.
 * A row naming a currency or network we do not know keeps the service's own text. A success
 * envelope without `data` is a shape error (a failure envelope may carry `data: null`).
 */
import { z } from 'zod';
import { PATHS } from '../assumptions.js';
import { CURRENCIES, lookup, NETWORKS } from '../enums.js';
import { rejection, shapeError } from '../failures.js';
import { wireDecimal, wireStatus } from '../json.js';
import { isLosslessNumber } from 'lossless-json';
import { is2xx, refusal, type WalletCalls } from './calls.js';
import type { OriginBalance } from './types.js';

const code = z.preprocess((v) => (isLosslessNumber(v) ? v.toString() : v), z.union([z.string(), z.number()]));

const rowSchema = z
  .looseObject({
    currency: code.nullish(),
    key: code.nullish(),
    networkChain: code,
    balance: wireDecimal,
  })
  .refine((r) => r.currency != null || r.key != null, { message: 'missing currency (or key)', path: ['currency'] });

const balancesResponseSchema = z.looseObject({
  status: wireStatus.optional(),
  message: z.string().nullish(),
  data: z.array(rowSchema).nullish(),
});

const nameOf = (members: typeof CURRENCIES | typeof NETWORKS, v: string | number) =>
  lookup(members, v)?.name ?? String(v).trim();

export function originBalances(c: WalletCalls): Promise<OriginBalance[]> {
  return c.guard('originBalances', async () => {
    const res = await c.idempotent(
      'originBalances',
      {
        method: 'GET',
        path: PATHS.originBalances,
        params: { publicKey: c.options.publicKey },
        headers: { Accept: 'application/json', ...c.apiKeyHeader },
      },
      c.deadlineFromNow(),
    );
    if (!is2xx(res.status)) refusal('originBalances', res, 'apiKey');
    const parsed = balancesResponseSchema.safeParse(res.body);
    if (!parsed.success) throw shapeError('originBalances', res, parsed.error);
    if (parsed.data.status !== undefined && parsed.data.status !== 1) throw rejection('originBalances', res);
    // A success without its list says nothing about any balance: never read it as "no balances" (all 0).
    if (parsed.data.data == null) throw shapeError('originBalances', res);
    return parsed.data.data.map((r) => ({
      currency: nameOf(CURRENCIES, (r.currency ?? r.key)!),
      network: nameOf(NETWORKS, r.networkChain),
      balance: r.balance,
    }));
  });
}
