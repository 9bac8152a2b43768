/**
 * JSON that keeps amounts exact. JSON.parse turns 0.123456789012345678 into a binary
 * float and loses digits; money must not. Wallet responses, webhook bodies and the
 * sandbox's request bodies are parsed with lossless-json, and schemas convert each number
 * either to a plain number (codes, counters) or to its exact decimal text (amounts).
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { Decimal } from 'decimal.js';
import { z } from 'zod';

export { LosslessNumber };

/** Parse JSON text keeping every number as a LosslessNumber. Throws SyntaxError on bad JSON. */
export function parseJson(text: string): unknown {
  return parse(text);
}

/** Serialize, writing LosslessNumber values with their exact digits. */
export function stringifyJson(value: unknown): string {
  const out = stringify(value);
  if (out === undefined) throw new TypeError('value cannot be serialized to JSON');
  return out;
}

/** A JSON number whose text is exactly `decimal` (e.g. an approved amount). */
export function jsonDecimal(decimal: string): LosslessNumber {
  return new LosslessNumber(decimal);
}

/** Turn LosslessNumbers back into plain numbers, recursively, for code that does not care about precision. */
export function toPlain(value: unknown): unknown {
  if (isLosslessNumber(value)) return value.valueOf();
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}

const unwrap = (v: unknown) => (isLosslessNumber(v) ? v.toString() : v);

/** A number on the wire (LosslessNumber, number, or numeric string) as a JS number. */
export const wireNumber = z.preprocess((v) => {
  const u = unwrap(v);
  return typeof u === 'string' && u.trim() !== '' && !Number.isNaN(Number(u)) ? Number(u) : u;
}, z.number());

/** An amount on the wire (LosslessNumber, number, or numeric string) as its exact decimal text. */
export const wireDecimal = z.preprocess(
  (v) => {
    const u = unwrap(v);
    return typeof u === 'number' ? String(u) : typeof u === 'string' ? u.trim() : u;
  },
  z.string().refine((s) => {
    try {
      return new Decimal(s).isFinite();
    } catch {
      return false;
    }
  }, 'not a decimal number'),
);
