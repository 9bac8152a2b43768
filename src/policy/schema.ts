/**
 * The treasury policy file (ARCHITECTURE.md section 4), validated with zod. Amounts are
 * kept as exact decimal strings; currency and network keys are normalised to their
 * canonical names so "usdt", "4" and "USDT" mean the same thing.
 */
import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { CURRENCIES, NETWORKS, acceptedNames, lookup } from '../wallet/enums.js';

const DURATION = /^(\d+)\s*(s|m|h|d)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const durationSchema = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const m = DURATION.exec(String(v).trim());
  if (!m) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration; write e.g. 90s, 30m, 2h or 1d` });
    return z.NEVER;
  }
  return Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
});

/** Amounts arrive as text (load.ts keeps YAML decimals as written) or as safe integers. */
export const amountSchema = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const text = String(v).trim();
  try {
    const d = new Decimal(text);
    if (d.isFinite() && d.gt(0)) return d.toFixed();
  } catch {
    /* reported below */
  }
  ctx.addIssue({ code: 'custom', message: `"${v}" is not a positive amount` });
  return z.NEVER;
});

const currencyKey = z.string().transform((v, ctx) => {
  if (v === 'default') return v;
  const c = lookup(CURRENCIES, v);
  if (!c) {
    ctx.addIssue({ code: 'custom', message: `unknown currency "${v}"; accepted: ${acceptedNames(CURRENCIES)}` });
    return z.NEVER;
  }
  return c.name;
});

const networkName = z.string().transform((v, ctx) => {
  const n = lookup(NETWORKS, v);
  if (!n) {
    ctx.addIssue({ code: 'custom', message: `unknown network "${v}"; accepted: ${acceptedNames(NETWORKS)}` });
    return z.NEVER;
  }
  return n.name;
});

const currencyName = currencyKey.refine((v) => v !== 'default', 'a currency is needed here');

const channelId = z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'must be a Slack channel id such as C0123ABCD');
/** Slack user ids (U/W...), user-group ids (S...), or "*" for everyone. */
const principal = z
  .string()
  .regex(/^(\*|[UWS][A-Z0-9]{2,})$/, 'must be a Slack user id (U...), a user group id (S...) or "*"');

const perCurrency = <T extends z.ZodTypeAny>(value: T) =>
  z.record(z.string(), value).transform((rec, ctx) => {
    // No prototype: a currency looked up from a webhook or a user ("constructor") finds nothing.
    const out: Record<string, z.output<T>> = Object.create(null);
    for (const [k, v] of Object.entries(rec)) {
      const parsed = currencyKey.safeParse(k);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message, path: [k] });
        continue;
      }
      out[parsed.data] = v as z.output<T>;
    }
    return out;
  });

const tierSchema = z.object({
  max: amountSchema.optional(),
  approvals: z.number().int().min(1).max(20),
  must_include: z.array(principal).default([]),
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

const routeSchema = z.object({
  kind: z.enum(['deposit', 'withdrawal', 'remittance', 'transfer', 'any']).default('any'),
  currency: currencyName.optional(),
  network: networkName.optional(),
  channel: channelId,
});

export const policySchema = z
  .object({
    channels: z.object({
      approvals: channelId,
      alerts: channelId,
      routes: z.array(routeSchema).default([]),
    }),
    people: z.object({
      viewers: z.array(principal).default(['*']),
      requesters: z.array(principal).default([]),
      approvers: z.array(principal).default([]),
      admins: z.array(principal).default([]),
    }),
    withdrawals: z
      .object({
        expires_after: durationSchema.default(2 * 3_600_000),
        remind_before: durationSchema.default(30 * 60_000),
        tiers: perCurrency(tierListSchema).refine((t) => 'default' in t, 'a "default" tier list is required'),
        daily_limit: perCurrency(amountSchema).default({}),
        /** Requests above this amount (per currency) must say what they are for. */
        note_required_above: perCurrency(amountSchema).default({}),
        allowlist: z
          .object({
            mode: z.enum(['enforce', 'warn', 'off']).default('warn'),
            addresses: z
              .array(z.object({ address: z.string().min(1), network: networkName, label: z.string().min(1).max(80) }))
              .default([]),
          })
          .default({ mode: 'warn', addresses: [] }),
      })
      .default({
        expires_after: 2 * 3_600_000,
        remind_before: 30 * 60_000,
        tiers: { default: [{ approvals: 2, must_include: [] }] },
        daily_limit: {},
        note_required_above: {},
        allowlist: { mode: 'warn', addresses: [] },
      }),
    alerts: z.object({ mention_above: perCurrency(amountSchema).default({}) }).default({ mention_above: {} }),
  })
  .superRefine((p, ctx) => {
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
export type Tier = z.output<typeof tierSchema>;
export type Role = keyof Policy['people'];
