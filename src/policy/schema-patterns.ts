/**
 * The policy's rules for money that moves in patterns (issue 39): rolling limits per destination,
 * requester, client or everything, and the extra approval for a destination never paid before;
 * and when a request waiting for approvals is escalated. Kept apart from schema.ts so that file
 * reads as the policy's sections; every object is strict like the rest.
 */
import { z } from 'zod';
import { amountSchema, durationSchema } from './schema-parts.js';

/** The windows a rolling limit may sum over, in milliseconds. */
export const LIMIT_WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type LimitWindow = keyof typeof LIMIT_WINDOWS;
/** What a rolling limit groups requests by. */
export const LIMIT_PER = ['destination', 'requester', 'client', 'all'] as const;
export type LimitPer = (typeof LIMIT_PER)[number];

export const rollingLimitSchema = z.strictObject({
  per: z
    .enum(LIMIT_PER)
    .describe(
      'What the window sums: one destination (address and network), one requester, one client (its email), or all withdrawals.',
    ),
  window: z
    .enum(Object.keys(LIMIT_WINDOWS) as [LimitWindow, ...LimitWindow[]])
    .describe('The rolling window: 24h, 7d or 30d.'),
  value: amountSchema.describe(
    'The most, in USD at the policy price, that may be requested in the window (pending requests included); an unknown value counts as over it.',
  ),
  action: z
    .enum(['escalate', 'refuse'])
    .default('refuse')
    .describe(
      'Past the limit: `refuse` (the default: the request is not made; a send is held until the window has room or an admin releases it) or `escalate` (it needs the approvals of the top tier).',
    ),
});
export type RollingLimit = z.output<typeof rollingLimitSchema>;

export const newDestinationSchema = z.strictObject({
  above: z
    .strictObject({ value: amountSchema.describe('USD value; an unknown value counts as above it.') })
    .describe('A first payment to a destination is asked for more only above this value.'),
  extra_approvals: z
    .number()
    .int()
    .min(1)
    .max(5)
    .default(1)
    .describe('Approvals needed beyond the tier’s for a destination never paid before.'),
});
export type NewDestinationRule = z.output<typeof newDestinationSchema>;

export const patternKeys = {
  limits: z
    .array(rollingLimitSchema)
    .max(20)
    .default([])
    .describe(
      'Rolling limits in USD value per destination, requester, client or all, over 24h, 7d or 30d; each judged at the request, every approval and the send.',
    ),
  new_destination: newDestinationSchema
    .optional()
    .describe(
      'More approvals for a first payment to a destination: completed withdrawals to it (an EVM address on any EVM network) worth less than above.value together. Fixed when the request is made: a later payment to it does not lower it.',
    ),
  escalate_after: durationSchema
    .refine((ms) => ms >= 60_000, 'must be at least 1m')
    .optional()
    .describe(
      'A request still short of approvals this long after it was made: the approvers still needed are DMed; at twice this, the escalation channel (or the admins) is told. Unset: half of expires_after, at least 1m.',
    ),
};

/** When a request is escalated: the policy's, else half its time to expire, never under a minute. */
export function escalateAfter(w: { escalate_after?: number | undefined; expires_after: number }): number {
  return w.escalate_after ?? Math.max(60_000, Math.floor(w.expires_after / 2));
}
