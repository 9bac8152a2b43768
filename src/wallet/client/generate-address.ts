/** Deposit address generation (API key; idempotent: the same inputs give the same address, so it is retried). */
import { PATHS } from '../assumptions.js';
import { inputError, rejection, shapeError } from '../failures.js';
import type { HttpResponse } from '../http.js';
import { stringifyJson } from '../json.js';
import {
  generateAddressInputSchema,
  generateAddressResponseSchema,
  toWalletAddress,
  type WalletAddress,
} from '../schemas.js';
import { is2xx, JSON_HEADERS, refusal, resolveCurrency, resolveNetwork, type WalletCalls } from './calls.js';
import type { GenerateAddressInput } from './types.js';

export function generateAddress(c: WalletCalls, i: GenerateAddressInput): Promise<WalletAddress> {
  return c.guard('generateAddress', async () => {
    const input = generateAddressInputSchema.safeParse(i);
    if (!input.success) throw inputError('generateAddress', input.error);
    const currency = resolveCurrency('generateAddress', i.currency);
    const network = resolveNetwork('generateAddress', i.network);
    const body = {
      clientEmailAddress: input.data.clientEmail,
      currency: String(currency.code),
      networkChain: network.name,
      publicKey: c.options.publicKey,
    };
    const res = await c.idempotent(
      'generateAddress',
      {
        method: 'POST',
        path: PATHS.generateAddress,
        headers: { ...JSON_HEADERS, ...c.apiKeyHeader },
        body: stringifyJson(body),
      },
      c.deadlineFromNow(),
    );
    if (!is2xx(res.status)) refusal('generateAddress', res, 'apiKey');
    const parsed = generateAddressResponseSchema.safeParse(res.body);
    if (!parsed.success) {
      if (statusZero(res)) throw rejection('generateAddress', res);
      throw shapeError('generateAddress', res, parsed.error);
    }
    if (parsed.data.status !== 1) throw rejection('generateAddress', res);
    return toWalletAddress(parsed.data.data);
  });
}

function statusZero(res: HttpResponse): boolean {
  const b = res.body as { status?: unknown } | undefined;
  return !!b && typeof b === 'object' && (String(b.status) === '0' || b.status === false);
}
