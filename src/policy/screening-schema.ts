/**
 * The policy's `screening:` section (src/screening): the sanctions list and provider checked
 * wherever the rule table runs, the stale list failing closed above a value, and the extra
 * approvals a look-alike destination needs.
 */
import { z } from 'zod';
import { amountSchema, DAY_MS, durationSchema } from './schema-parts.js';

export const SCREENING_DEFAULTS = {
  enabled: true,
  max_age: 2 * DAY_MS,
  stale_block_above: '10000',
  lookalike_extra_approvals: 1,
  refresh: DAY_MS,
};

export const screeningSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Ask the sanctions screening provider (when configured) and flag look-alike destinations, and refuse above `stale_block_above` on a stale list. `false` switches these off; the sanctions list itself is always checked, at the request, each approval, the send and the verification callback, and on every deposit’s sender.',
      ),
    max_age: durationSchema
      .refine((ms) => ms >= 3_600_000, 'must be at least 1h')
      .default(SCREENING_DEFAULTS.max_age)
      .describe(
        'A list not refreshed for this long is stale: requests above `stale_block_above` are refused, those below are flagged on the card.',
      ),
    stale_block_above: amountSchema
      .default(SCREENING_DEFAULTS.stale_block_above)
      .describe(
        'In USD value: while the list is stale, requests above this are refused (an unknown value counts as above).',
      ),
    lookalike_extra_approvals: z
      .number()
      .int()
      .min(0)
      .max(5)
      .default(SCREENING_DEFAULTS.lookalike_extra_approvals)
      .describe(
        'More approvals a destination needs when it looks like a known one (same first and last 4 characters as an allowlist entry or a destination paid in the last 90 days) but is another address.',
      ),
    refresh: durationSchema
      .refine((ms) => ms >= 3_600_000 && ms <= 7 * DAY_MS, 'must be between 1h and 7d')
      .default(SCREENING_DEFAULTS.refresh)
      .describe(
        'How often the list is read again from SANCTIONS_LIST_URL (the `screening.refresh` job tries every hour once a refresh is due or has failed).',
      ),
  })
  .default(SCREENING_DEFAULTS)
  .describe('Sanctions screening and look-alike destinations.');
