/**
 * Whether a price answer is believed, per currency: pure, so every refusal rule is tested
 * without a network. An answer that is not the documented shape (`{ "<id>": { "usd": <number> } }`)
 * is refused whole; otherwise each currency's price is refused when it is missing, not a
 * positive finite number, absurdly large, its `last_updated_at` is unreadable or implausible, it is
 * older than max_age, or it moved more than 50% from the last accepted price (at any age) on one
 * answer alone (judgeMove). A price is as old as the source says (`last_updated_at`) when that is
 * older than the fetch; an answer without it counts from the fetch time (nothing better is known).
 */
import { z } from 'zod';
import { Dec } from '../money/decimal.js';
import { MAX_PRICE_USD } from './bounds.js';
import type { Quote } from './types.js';

/** The documented /simple/price answer: coin id → { usd, last_updated_at? } (other fields ignored). */
export const simplePriceSchema = z.record(
  z.string(),
  // last_updated_at is judged per currency: one bad field refuses that price only, not the whole answer.
  z.looseObject({ usd: z.number(), last_updated_at: z.unknown().optional() }),
);

/** A move larger than this fraction of the last accepted price is not believed on one answer. */
export const MOVE_LIMIT = new Dec('0.5');
/** A large move is believed when a second answer at least this much later confirms it. */
export const CONFIRM_GAP_MS = 60_000;
/** "The same price level": the confirming answer is within this fraction of the first sighting. */
export const CONFIRM_TOLERANCE = new Dec('0.05');
/** A source time before this is not a price time (no coin price predates 2009). */
export const EARLIEST_SOURCE_TIME_MS = Date.parse('2009-01-01T00:00:00.000Z');
/** A source clock may run a little ahead of ours; more than this is a bad field. */
export const SOURCE_CLOCK_SLACK_MS = 60_000;
/** A price above this (USD per unit) is not a market price (bounds.ts: the past days' bound too). */
const ABSURD_PRICE = new Dec(MAX_PRICE_USD);

/** A large move seen once (price text, fetch time in ms), waiting for a second answer to confirm it. */
export interface Sighting {
  price: string;
  at: number;
}

export interface Judged {
  accepted: Record<string, Quote>;
  /** Per currency, why its price was refused. */
  refused: Record<string, string>;
  /** Per currency, a large move refused until confirmed: its value is unknown meanwhile. */
  held: Record<string, Sighting>;
  /** The whole answer refused (shape): why. */
  invalid?: string;
}

export function judgeAnswer(
  body: unknown,
  o: {
    ids: Readonly<Record<string, string>>;
    /** The last accepted quote per currency, however old: the reference a move is measured from. */
    last: Readonly<Record<string, Quote>>;
    /** Large moves seen once and not yet confirmed. */
    pending?: Readonly<Record<string, Sighting>>;
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
      held: {},
      invalid: `not the documented shape (${issue ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'unreadable'})`,
    };
  }
  const accepted: Record<string, Quote> = {};
  const refused: Record<string, string> = {};
  const held: Record<string, Sighting> = {};
  for (const [currency, id] of Object.entries(o.ids)) {
    const entry = Object.hasOwn(parsed.data, id) ? parsed.data[id] : undefined;
    if (!entry) {
      refused[currency] = `the price source does not list ${currency} (${id})`;
      continue;
    }
    const judged = judgePrice(entry, o);
    if (typeof judged === 'string') {
      refused[currency] = judged;
      continue;
    }
    const move = judgeMove(judged.price, { ...o, reference: o.last[currency], pending: o.pending?.[currency] });
    if (move.ok) accepted[currency] = { price: judged.price, at: new Date(judged.at).toISOString(), source: o.source };
    else {
      refused[currency] = move.reason;
      held[currency] = move.pending;
    }
  }
  return { accepted, refused, held };
}

/** One currency's entry: its price (exact text) and time (ms), or why it is refused. */
function judgePrice(
  entry: { usd: number; last_updated_at?: unknown },
  o: { now: number; maxAgeMs: number },
): { price: string; at: number } | string {
  if (!Number.isFinite(entry.usd)) return 'not a number';
  if (entry.usd < 0) return `negative (${entry.usd})`;
  if (entry.usd === 0) return 'zero';
  const price = new Dec(String(entry.usd));
  if (price.gt(ABSURD_PRICE)) return `absurd (${entry.usd})`;
  const lu = entry.last_updated_at;
  if (lu === undefined) return { price: price.toFixed(), at: o.now };
  if (
    typeof lu !== 'number' ||
    !Number.isSafeInteger(lu) ||
    lu * 1000 < EARLIEST_SOURCE_TIME_MS ||
    lu * 1000 > o.now + SOURCE_CLOCK_SLACK_MS
  )
    return `the source's update time is not plausible (${String(lu).slice(0, 40)})`;
  const at = Math.min(o.now, lu * 1000);
  if (o.now - at > o.maxAgeMs) return `late: last updated at ${new Date(at).toISOString()}`;
  return { price: price.toFixed(), at };
}

/**
 * The move rule: a price more than 50% away from the last accepted one (however old) is believed
 * only when confirmed, at the same level (within 5%), by a second answer at least a minute after the
 * first sighting and within max_age of it. A first price ever (no reference) is believed. Refused,
 * the sighting to remember (the first one, while it can still be confirmed).
 */
export function judgeMove(
  price: string,
  o: { reference: Quote | undefined; pending: Sighting | undefined; now: number; maxAgeMs: number },
): { ok: true } | { ok: false; reason: string; pending: Sighting } {
  if (!o.reference) return { ok: true };
  const p = new Dec(price);
  const move = p.minus(o.reference.price).abs().div(o.reference.price);
  if (!move.gt(MOVE_LIMIT)) return { ok: true };
  const same = o.pending !== undefined && p.minus(o.pending.price).abs().div(o.pending.price).lte(CONFIRM_TOLERANCE);
  const waited = o.pending ? o.now - o.pending.at : 0;
  if (same && waited >= CONFIRM_GAP_MS && waited <= o.maxAgeMs) return { ok: true };
  const keep = same && waited >= 0 && waited < CONFIRM_GAP_MS;
  return {
    ok: false,
    reason: `absurd: ${move.times(100).toFixed(0)}% away from the last accepted price ${o.reference.price} in one answer (value unknown until a second answer confirms it)`,
    pending: keep && o.pending ? o.pending : { price, at: o.now },
  };
}
