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

/**
 * Object keys with their first letter in lower case, recursively: the service's answers come
 * in camelCase, its samples also in PascalCase (`Data`, `IsSuccessful`); both read the same.
 * A key already present in camelCase wins over its PascalCase twin. Numbers are untouched.
 */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (!value || typeof value !== 'object' || isLosslessNumber(value)) return value;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) {
    const key = k.charAt(0).toLowerCase() + k.slice(1);
    if (key !== k && Object.hasOwn(value, key)) continue;
    Object.defineProperty(out, key, { value: camelKeys(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const unwrap = (v: unknown) => (isLosslessNumber(v) ? v.toString() : v);

/** A number on the wire (LosslessNumber, number, or numeric string) as a JS number. */
export const wireNumber = z.preprocess((v) => {
  const u = unwrap(v);
  return typeof u === 'string' && u.trim() !== '' && !Number.isNaN(Number(u)) ? Number(u) : u;
}, z.number());

/** An envelope's `status`: 1, "1" or true is success; 0, "0" or false is failure (as a number). */
export const wireStatus = z.preprocess((v) => (v === true ? 1 : v === false ? 0 : v), wireNumber);

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
