/**
 * The building blocks of the policy schema (schema.ts): durations, amounts, time zones, cron
 * expressions, currency and network names, Slack ids, and per-currency maps. Kept apart so the
 * schema itself reads as the policy file's sections.
 */
import { Decimal } from 'decimal.js';
import cron from 'node-cron';
import { z } from 'zod';
import { CURRENCIES, NETWORKS, acceptedNames, lookup } from '../wallet/enums.js';

export const DAY_MS = 86_400_000;
/** Stablecoins valued at no less than their peg for limits, unless the policy lists its own. */
export const DEFAULT_PEGS: Record<string, string> = { USDT: '1', USDC: '1', DAI: '1', BUSD: '1' };
const DURATION = /^(\d+)\s*(s|m|h|d)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const durationSchema = z
  .union([z.string(), z.number()])
  .meta({ unit: 'duration' })
  .transform((v, ctx) => {
    const m = DURATION.exec(String(v).trim());
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration; write e.g. 90s, 30m, 2h or 1d` });
      return z.NEVER;
    }
    return Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
  });

/** Amounts arrive as text (load.ts keeps YAML decimals as written) or as safe integers. */
export const amountSchema = z
  .union([z.string(), z.number()])
  .meta({ unit: 'amount' })
  .transform((v, ctx) => {
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

export const timezoneSchema = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as UTC or Europe/Berlin');

export const cronSchema = z
  .string()
  .refine(
    (expr) => cron.validate(expr),
    'must be a cron expression such as "0 8 * * *" (minute hour day month weekday)',
  )
  .meta({
    unit: 'cron',
    keyName: 'job',
    description: 'When this job runs (its name or alias, as /treasury status lists them), instead of the job table.',
  });

/** `default` (native, any currency) and `value` (USD, every currency without an entry of its own) are keys beside the currencies. */
export const currencyKey = z.string().transform((v, ctx) => {
  if (v === 'default' || v === 'value') return v;
  const c = lookup(CURRENCIES, v);
  if (!c) {
    ctx.addIssue({ code: 'custom', message: `unknown currency "${v}"; accepted: ${acceptedNames(CURRENCIES)}` });
    return z.NEVER;
  }
  return c.name;
});

export const networkName = z.string().transform((v, ctx) => {
  const n = lookup(NETWORKS, v);
  if (!n) {
    ctx.addIssue({ code: 'custom', message: `unknown network "${v}"; accepted: ${acceptedNames(NETWORKS)}` });
    return z.NEVER;
  }
  return n.name;
});

export const currencyName = currencyKey.refine((v) => v !== 'default' && v !== 'value', 'a currency is needed here');

export const channelId = z
  .string()
  .regex(/^[CGD][A-Z0-9]{2,}$/, 'must be a Slack channel id such as C0123ABCD')
  .meta({ unit: 'channel' });
/** Slack user ids (U/W...), user-group ids (S...), or "*" for everyone. */
export const principal = z
  .string()
  .regex(/^(\*|[UWS][A-Z0-9]{2,})$/, 'must be a Slack user id (U...), a user group id (S...) or "*"')
  .meta({ unit: 'principal' });

/** `special`: which of `default` and `value` mean something in this map (elsewhere they are refused, never ignored). */
export const perCurrency = <T extends z.ZodTypeAny>(
  value: T,
  special: readonly ('default' | 'value')[] = ['default', 'value'],
) =>
  z.record(z.string().meta({ title: 'currency' }), value).transform((rec, ctx) => {
    // No prototype: a currency looked up from a webhook or a user ("constructor") finds nothing.
    const out: Record<string, z.output<T>> = Object.create(null);
    for (const [k, v] of Object.entries(rec)) {
      const parsed = currencyKey.safeParse(k);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message, path: [k] });
        continue;
      }
      if ((parsed.data === 'default' || parsed.data === 'value') && !special.includes(parsed.data)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${k}" means nothing here: name a currency${special.length ? ` (or ${special.map((s) => `"${s}"`).join(', ')})` : ''}`,
          path: [k],
        });
        continue;
      }
      out[parsed.data] = v as z.output<T>;
    }
    return out;
  });
