/**
 * Withdrawal status by our own merchant reference (public-facts.md, "Operations the spec does
 * not list"): `GET /api/merchantClientWithdrawal/status/{merchantReference}`, ApiKey auth,
 * `Accept: text/plain; ver=1.0`, v1 envelope. A read, so retried like the other reads.
 *
 * Tolerant where the shape is unpublished: `withdrawalStatus` as a number, a numeric string
 * or a name (any case); a NotFound answer may carry `data: null` or null fields. Strict where it
 * matters: an answer naming ANOTHER merchantReference is not an answer about ours (a response
 * shape error: the caller treats it as the service unreachable); one without a reference is read
 * as ours.
 */
import { z } from 'zod';
import { PATHS, WITHDRAWAL_ACCEPT } from '../assumptions.js';
import { enumSchema, type EnumMember } from '../enums.js';
import { WalletValidationError } from '../errors.js';
import { inputError, rejection, shapeError } from '../failures.js';
import { wireDecimal, wireNumber, wireStatus } from '../json.js';
import { is2xx, refusal, type WalletCalls } from './calls.js';
import type { WithdrawalStatus, WithdrawalStatusName } from './types.js';

/** The documented statuses (1 NotFound, 2 Pending, 3 Completed, 4 Failed). */
export const WITHDRAWAL_STATUSES: readonly EnumMember[] = [
  { code: 1, name: 'NotFound', aliases: ['NOT_FOUND'] },
  { code: 2, name: 'Pending', aliases: [] },
  { code: 3, name: 'Completed', aliases: ['COMPLETE', 'SUCCESSFUL', 'SUCCESS'] },
  { code: 4, name: 'Failed', aliases: ['FAILURE'] },
];

export type { WithdrawalStatus, WithdrawalStatusName } from './types.js';

const NAMES: Record<number, WithdrawalStatusName> = { 1: 'not_found', 2: 'pending', 3: 'completed', 4: 'failed' };

const referenceSchema = z
  .string('merchantReference must be text')
  .trim()
  .min(1, 'merchantReference is required')
  .max(128, 'merchantReference is too long');

const statusEnum = z.preprocess(
  (v) => {
    const n = wireNumber.safeParse(v);
    return n.success ? n.data : v;
  },
  enumSchema(WITHDRAWAL_STATUSES, 'withdrawalStatus'),
);

const statusDataSchema = z.looseObject({
  amount: wireDecimal.nullish(),
  destinationAddress: z.string().nullish(),
  transactionHash: z.string().nullish(),
  merchantReference: z.string().nullish(),
  withdrawalStatus: statusEnum,
});

const statusResponseSchema = z.looseObject({
  status: wireStatus.optional(),
  message: z.string().nullish(),
  data: statusDataSchema.nullish(),
});

export function withdrawalStatus(c: WalletCalls, reference: string): Promise<WithdrawalStatus> {
  return c.guard('withdrawalStatus', async () => {
    const input = referenceSchema.safeParse(reference);
    if (!input.success) throw inputError('withdrawalStatus', input.error);
    const res = await c.idempotent(
      'withdrawalStatus',
      {
        method: 'GET',
        path: `${PATHS.withdrawalStatus}/${encodeURIComponent(input.data)}`,
        headers: { Accept: WITHDRAWAL_ACCEPT, ...c.apiKeyHeader },
      },
      c.deadlineFromNow(),
    );
    if (!is2xx(res.status)) refusal('withdrawalStatus', res, 'apiKey');
    const parsed = statusResponseSchema.safeParse(res.body);
    if (!parsed.success) throw shapeError('withdrawalStatus', res, parsed.error);
    if (parsed.data.status !== undefined && parsed.data.status !== 1) throw rejection('withdrawalStatus', res);
    const d = parsed.data.data;
    // An envelope without data says nothing about the withdrawal: not a NotFound we could trust.
    if (!d) throw shapeError('withdrawalStatus', res);
    const named = d.merchantReference?.trim();
    if (named && named !== input.data)
      throw new WalletValidationError(
        `The withdrawal status lookup failed: the wallet service's answer (HTTP ${res.status}) is about another merchant reference than the one asked. Nothing changed.`,
        { operation: 'withdrawalStatus', status: res.status, source: 'response' },
      );
    return {
      status: NAMES[d.withdrawalStatus.code]!,
      merchantReference: named || input.data,
      amount: d.amount ?? null,
      destinationAddress: d.destinationAddress ?? null,
      transactionHash: d.transactionHash ?? null,
    };
  });
}
