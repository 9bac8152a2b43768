/**
 * Whether a price answer is believed, per currency: pure, so every refusal rule is tested
 * without a network. An answer that is not the documented shape (`{ "<id>": { "usd": <number> } }`)
 * is refused whole; otherwise each currency's price is refused when it is missing, not a
 * positive finite number, absurdly large, older than max_age (`last_updated_at`), or more than
 * 50% away from the last accepted price when that one is under SPIKE_WINDOW_MS old (a move that
 * lasts past it is believed at the next refresh). A refused price leaves the last good one in place.
 */
import { z } from 'zod';
import { Dec } from '../withdrawals/money.js';
import type { Quote } from './types.js';

/** The documented /simple/price answer: coin id → { usd, last_updated_at? } (other fields ignored). */
export const simplePriceSchema = z.record(
  z.string(),
  z.looseObject({ usd: z.number(), last_updated_at: z.number().optional() }),
);

/** "Within a minute" of the last accepted price: a refresh runs once a minute, so give it room for jitter. */
export const SPIKE_WINDOW_MS = 90_000;
/** A price above this (USD per unit) is not a market price. */
const ABSURD_PRICE = new Dec('1e9');

export interface Judged {
  accepted: Record<string, Quote>;
  /** Per currency, why its price was refused. */
  refused: Record<string, string>;
  /** The whole answer refused (shape): why. */
  invalid?: string;
}

export function judgeAnswer(
  body: unknown,
  o: {
    ids: Readonly<Record<string, string>>;
    last: Readonly<Record<string, Quote>>;
    now: number;
    maxAgeMs: number;
    source: string;
  },
): Judged {
  const parsed = simplePriceSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      accepted: {},
      refused: {},
      invalid: `not the documented shape (${issue ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'unreadable'})`,
    };
  }
  const accepted: Record<string, Quote> = {};
  const refused: Record<string, string> = {};
  const at = new Date(o.now).toISOString();
  for (const [currency, id] of Object.entries(o.ids)) {
    const entry = Object.hasOwn(parsed.data, id) ? parsed.data[id] : undefined;
    if (!entry) {
      refused[currency] = `the price source does not list ${currency} (${id})`;
      continue;
    }
    const why = priceProblem(entry, o.last[currency], o);
    if (why) refused[currency] = why;
    else accepted[currency] = { price: new Dec(String(entry.usd)).toFixed(), at, source: o.source };
  }
  return { accepted, refused };
}

function priceProblem(
  entry: { usd: number; last_updated_at?: number | undefined },
  last: Quote | undefined,
  o: { now: number; maxAgeMs: number },
): string | undefined {
  if (!Number.isFinite(entry.usd)) return 'not a number';
  if (entry.usd < 0) return `negative (${entry.usd})`;
  if (entry.usd === 0) return 'zero';
  const price = new Dec(String(entry.usd));
  if (price.gt(ABSURD_PRICE)) return `absurd (${entry.usd})`;
  if (entry.last_updated_at !== undefined && o.now - entry.last_updated_at * 1000 > o.maxAgeMs)
    return `late: last updated at ${new Date(entry.last_updated_at * 1000).toISOString()}`;
  if (last && o.now - Date.parse(last.at) <= SPIKE_WINDOW_MS) {
    const move = price.minus(last.price).abs().div(last.price);
    if (move.gt('0.5'))
      return `absurd: ${move.times(100).toFixed(0)}% away from ${last.price} a moment ago (kept the last price)`;
  }
  return undefined;
}
