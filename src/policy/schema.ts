/**
 * The treasury policy file (ARCHITECTURE.md section 4), validated with zod. Amounts are
 * kept as exact decimal strings; currency and network keys are normalised to their
 * canonical names so "usdt", "4" and "USDT" mean the same thing. Every object is strict: a key
 * it does not know is refused like a bad value (a misspelt limit would otherwise be no limit);
 * unknown-keys.ts words it with the nearest known key.
 */
import { ROUTE_KINDS } from '../alert-kinds.js';
import { Decimal } from 'decimal.js';
import { z } from 'zod';
import {
  amountSchema,
  channelId,
  cronSchema,
  currencyName,
  DAY_MS,
  DEFAULT_PEGS,
  durationSchema,
  networkName,
  perCurrency,
  principal,
  timezoneSchema,
} from './schema-parts.js';
import { patternKeys } from './schema-patterns.js';
import { screeningSchema } from './screening-schema.js';

export { amountSchema, durationSchema } from './schema-parts.js';

const tierSchema = z.strictObject({
  max: amountSchema
    .optional()
    .describe('The largest amount (or USD value, in `value` tiers) of this tier; only the last tier may have none.'),
  approvals: z.number().int().min(1).max(20).describe('Distinct approvals needed, never the requester’s own.'),
  must_include: z
    .array(principal)
    .default([])
    .describe('People or groups who must be among the approvers (each must also be in `people.approvers`).'),
});

const tierListSchema = z
  .array(tierSchema)
  .min(1)
  .superRefine((tiers, ctx) => {
    tiers.forEach((t, i) => {
      const next = tiers[i + 1];
      if (t.max === undefined && next) {
        ctx.addIssue({ code: 'custom', message: 'only the last tier may have no max', path: [i] });
      }
      if (t.max !== undefined && next?.max !== undefined && !new Decimal(next.max).gt(t.max)) {
        ctx.addIssue({ code: 'custom', message: 'tiers must be in increasing order of max', path: [i + 1] });
      }
    });
  });

const routeSchema = z.strictObject({
  kind: z
    .enum([...ROUTE_KINDS, 'any'])
    .default('any')
    .describe('The kind of transaction this route takes.'),
  currency: currencyName.optional().describe('Only this currency (any, when unset).'),
  network: networkName.optional().describe('Only this network (any, when unset).'),
  channel: channelId.describe('The channel its alerts go to.'),
});

export const policySchema = z
  .strictObject({
    channels: z
      .strictObject({
        approvals: channelId.describe('Where approval cards, policy changes and freeze notices are posted.'),
        alerts: channelId.describe('Where deposit, withdrawal and remittance alerts go when no route matches.'),
        escalation: channelId
          .optional()
          .describe(
            'Where requests still short of approvals at twice withdrawals.escalate_after are posted; unset: the admins are DMed.',
          ),
        routes: z
          .array(routeSchema)
          .default([])
          .describe('Alert channels by kind, currency and network; the first route that matches wins.'),
      })
      .describe('Where the app posts.'),
    people: z
      .strictObject({
        viewers: z
          .array(principal)
          .default(['*'])
          .describe('Who may use /address, /tx, /treasury pending, balances, digest and a withdrawal’s story.'),
        requesters: z.array(principal).default([]).describe('Who may request withdrawals (/withdraw).'),
        approvers: z
          .array(principal)
          .default([])
          .describe('Who may approve or reject withdrawals; never their own request.'),
        admins: z
          .array(principal)
          .default([])
          .describe(
            'Who may freeze, approve policy changes, read the audit log, reset step-up codes; name two so that an unfreeze can be confirmed.',
          ),
      })
      .describe('Who may do what: Slack user ids (U…), user-group ids (S…) or "*" for everyone.'),
    withdrawals: z
      .strictObject({
        expires_after: durationSchema
          .default(2 * 3_600_000)
          .describe('A request not fully approved this long after it was made expires, unsent.'),
        remind_before: durationSchema
          .default(30 * 60_000)
          .describe('Approvers still needed are reminded this long before a request expires.'),
        /**
         * A withdrawal of unknown outcome that the wallet service says it has no record of is
         * trusted as never executed only this long after it was sent (the service may not have
         * recorded it yet); before that it stays unknown.
         */
        not_found_grace: durationSchema
          .refine(
            (ms) => ms >= 60_000,
            'must be at least 1m: the wallet service may not have recorded a withdrawal at once, and a NotFound trusted too early would invite paying it twice',
          )
          .default(10 * 60_000)
          .describe(
            'A withdrawal of unknown outcome that the wallet service has no record of counts as not sent only this long after it was sent (at least 1m).',
          ),
        tiers: perCurrency(tierListSchema)
          .refine((t) => 'default' in t || 'value' in t, 'a "value" (or "default") tier list is required')
          .describe(
            'Approvals needed, as tiers in increasing order of max: per currency (native amounts), `value` (USD value, for every currency without a list of its own) or `default` (native amounts, any currency). A request with no fresh price needs the last tier of `value`.',
          ),
        daily_limit: perCurrency(amountSchema, ['value'])
          .default({})
          .describe(
            'Rolling 24 h limit: per currency (native), or `value` (USD, summed across every currency; a request whose value is unknown counts as over it).',
          ),
        /** Requests above this amount (per currency) must say what they are for. */
        note_required_above: perCurrency(amountSchema)
          .default({})
          .describe(
            'Requests above this must say what they are for: per currency (native) or `value` (USD; an unknown value needs a note).',
          ),
        /** Approving a request above this amount (per currency) needs a current authenticator code. */
        step_up_above: perCurrency(amountSchema)
          .default({})
          .describe(
            'Approving above this needs a code from an authenticator app, or a passkey (which also binds the approval to the withdrawal): per currency (native) or `value` (USD; an unknown value needs one).',
          ),
        /** Approving a request above this amount needs a passkey or security key: a code is not enough. */
        passkey_above: perCurrency(amountSchema)
          .default({})
          .describe(
            'Approving above this needs a passkey or security key, confirmed on a page showing that withdrawal (a code is not enough): per currency (native) or `value` (USD; an unknown value needs one).',
          ),
        /** A passkey set up from Slack confirms approvals only this long after: time for the admins, told at once, to revoke one a hijacked account enrolled. */
        passkey_cooloff: durationSchema
          .default(DAY_MS)
          .describe(
            'A newly set-up passkey confirms approvals only this long after (the admins are told at once, so one enrolled from a hijacked Slack account can be revoked first).',
          ),
        allowlist: z
          .strictObject({
            mode: z
              .enum(['enforce', 'warn', 'off'])
              .default('warn')
              .describe('enforce: refuse other destinations; warn: flag them on the card; off: no list.'),
            /** A newly approved address becomes usable this long after its approval. */
            cooloff: durationSchema
              .default(DAY_MS)
              .describe('A newly approved address becomes usable this long after the policy change is approved.'),
            addresses: z
              .array(
                z.strictObject({
                  address: z.string().min(1).describe('The destination address, written in full.'),
                  network: networkName.describe('Its network.'),
                  label: z.string().min(1).max(80).describe('The name shown beside it on cards and in the digest.'),
                }),
              )
              .default([])
              .describe('The destinations the treasury pays.'),
          })
          .default({ mode: 'warn', cooloff: DAY_MS, addresses: [] })
          .describe('Where withdrawals may go.'),
        ...patternKeys,
      })
      .describe('What a withdrawal needs before it is sent.')
      .default({
        expires_after: 2 * 3_600_000,
        remind_before: 30 * 60_000,
        not_found_grace: 10 * 60_000,
        tiers: { default: [{ approvals: 2, must_include: [] }] },
        daily_limit: {},
        note_required_above: {},
        step_up_above: {},
        passkey_above: {},
        passkey_cooloff: DAY_MS,
        allowlist: { mode: 'warn', cooloff: DAY_MS, addresses: [] },
        limits: [],
      }),
    /**
     * Admins who must approve a change of this file before it takes effect. Unset: 2, or 1
     * when the policy names a single admin (see effectivePolicyChangeApprovals).
     */
    policy_changes: z
      .strictObject({
        approvals: z
          .number()
          .int()
          .min(1)
          .max(20)
          .optional()
          .describe('Admins who must approve a change of this file: 2 when unset, or 1 when one admin is named.'),
      })
      .default({})
      .describe('How a change of this file is approved before it applies.'),
    alerts: z
      .strictObject({
        mention_above: perCurrency(amountSchema)
          .default({})
          .describe('Confirmed deposits above this @mention the channel: per currency (native) or `value` (USD).'),
        /** One alert when a balance falls below this amount, one when it recovers. */
        low_balance: perCurrency(amountSchema)
          .default({})
          .describe(
            'One alert when a balance (per asset and network) falls below this, one when it recovers: per currency (native) or `value` (USD).',
          ),
        /** A transaction reported confirmed whose own record the history still lacks this long after is flagged. */
        verify_grace: durationSchema
          .refine(
            (ms) => ms >= 30_000,
            "must be at least 30s: the wallet's history may list a transaction a little after its notification",
          )
          .default(10 * 60_000)
          .describe(
            'A transaction (deposit, withdrawal, remittance or transfer) reported confirmed by a notification and not in the wallet’s history this long after is flagged as possibly forged (at least 30s).',
          ),
      })
      .default({ mention_above: {}, low_balance: {}, verify_grace: 10 * 60_000 })
      .describe('Transaction and balance alerts.'),
    valuation: z
      .strictObject({
        currency: z.literal('USD').default('USD').describe('The unit of every `value` entry (USD only).'),
        max_age: durationSchema
          .default(5 * 60_000)
          .describe('A price older than this counts as unknown: the request is then treated as the strictest case.'),
        ids: perCurrency(z.string().regex(/^[a-z0-9-]{1,80}$/, 'must be a CoinGecko coin id such as bitcoin'), [])
          .default({})
          .describe('CoinGecko coin ids by currency, overriding the built-in list (e.g. `XEND: xend-finance`).'),
        lookback: durationSchema
          .refine((ms) => ms >= 3_600_000 && ms <= 90 * DAY_MS, 'must be between 1h and 90d')
          .default(7 * DAY_MS)
          .describe(
            'Limits judge at the highest price accepted in this window (kept in the store): a rise counts at once, a fall only once it has left the window.',
          ),
        pegs: perCurrency(amountSchema, [])
          .default(DEFAULT_PEGS)
          .describe('Stablecoins and their peg in USD: never valued below it for limits (replaces the default list).'),
        floor: perCurrency(amountSchema, [])
          .default({})
          .describe('An admin floor per asset in USD: never valued below it for limits.'),
      })
      .default({ currency: 'USD', max_age: 5 * 60_000, ids: {}, lookback: 7 * DAY_MS, pegs: DEFAULT_PEGS, floor: {} })
      .describe('How amounts are valued in USD for the `value` entries of the policy.'),
    /**
     * When the scheduled jobs run: `timezone` (IANA name) and, per job, a node-cron
     * expression keyed by the job's name (e.g. `digest: "0 8 * * *"`); jobs not named
     * keep the schedule of the job table (src/jobs/table.ts), which also checks the names
     * (the catch-all, not strictness, is what refuses an unknown name here).
     */
    schedule: z
      .object({ timezone: timezoneSchema.default('UTC').describe('The time zone of every schedule (IANA name).') })
      .catchall(cronSchema)
      .default({ timezone: 'UTC' })
      .describe('When the scheduled jobs run; jobs not named keep their own schedule.'),
    /** Events, alert records and outbox entries older than this are pruned (never the audit log or requests). */
    retention: z
      .strictObject({
        days: z
          .number()
          .int()
          .min(1)
          .max(3650)
          .default(30)
          .describe(
            'Events, alert records and delivered Slack posts older than this are pruned; never the audit log or requests.',
          ),
      })
      .default({ days: 30 })
      .describe('How long records are kept.'),
    /** The export sent to the admins on the first day of each month (`off`: none). */
    exports: z
      .strictObject({
        monthly: z
          .enum(['csv', 'xero', 'quickbooks', 'cryptio', 'off'])
          .default('csv')
          .describe("The format of last month's export sent to each admin on the 1st; off: none."),
      })
      .default({ monthly: 'csv' })
      .describe('Exports sent by the app.'),
    screening: screeningSchema,
  })
  .superRefine((p, ctx) => {
    // A change nobody can approve would freeze the policy for good.
    const wanted = p.policy_changes.approvals;
    const onlyUsers = p.people.admins.every((a) => /^[UW]/.test(a));
    if (wanted !== undefined && onlyUsers && wanted > p.people.admins.length) {
      ctx.addIssue({
        code: 'custom',
        message: `needs ${wanted} admins to approve a change but people.admins lists ${p.people.admins.length}`,
        path: ['policy_changes', 'approvals'],
      });
    }
    // A requirement nobody can meet would leave requests waiting until they expire.
    for (const [cur, tiers] of Object.entries(p.withdrawals.tiers)) {
      tiers.forEach((t, i) => {
        for (const who of t.must_include) {
          if (!p.people.approvers.includes(who) && !p.people.approvers.includes('*')) {
            ctx.addIssue({
              code: 'custom',
              message: `${who} is in must_include but not in people.approvers`,
              path: ['withdrawals', 'tiers', cur, i, 'must_include'],
            });
          }
        }
      });
    }
  });

export type Policy = z.output<typeof policySchema>;

/** Admins needed to approve a policy change: as configured, else 2, or 1 when only one admin exists. */
export function effectivePolicyChangeApprovals(p: Policy): number {
  if (p.policy_changes.approvals !== undefined) return p.policy_changes.approvals;
  return p.people.admins.length === 1 && /^[UW]/.test(p.people.admins[0]!) ? 1 : 2;
}
export type Tier = z.output<typeof tierSchema>;
export type Role = keyof Policy['people'];
