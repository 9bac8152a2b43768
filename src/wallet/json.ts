/**
 * JSON that keeps amounts exact. JSON.parse turns 0.123456789012345678 into a binary
 * float and loses digits; money must not. Wallet responses, webhook bodies and the
 * sandbox's request bodies are parsed with lossless-json, and schemas convert each number
 * either to a plain number (codes, counters) or to its exact decimal text (amounts).
 *
 * Every number from outside is bounded before anything reads it (issue 20): at most
 * MAX_SIGNIFICANT_DIGITS significant digits and a decimal exponent within ±MAX_EXPONENT. A JSON
 * number literal beyond that makes the whole text unparseable (OutOfBoundsJson: a wallet
 * answer is then malformed, a webhook refused with the reason); an amount given as text is
 * checked by wireDecimal. The check is one linear pass: no big number is ever expanded.
 */
import { randomUUID } from 'node:crypto';
import { isLosslessNumber, LosslessNumber, stringify } from 'lossless-json';
import { Decimal } from 'decimal.js';
import { z } from 'zod';

export { LosslessNumber };

/** Most significant digits an outside number may carry (leading and trailing zeros do not count). */
export const MAX_SIGNIFICANT_DIGITS = 40;
/** Largest decimal exponent, either way, of an outside number: 1e40 and 1e-40 are the extremes. */
export const MAX_EXPONENT = 40;
/** Longest number text read at all (zeros that do not count still cost reading). */
const MAX_NUMBER_TEXT = 2 * (MAX_SIGNIFICANT_DIGITS + MAX_EXPONENT);

// Anchored, no nested quantifiers: linear even on a failing 256 KB string.
const NUMBER_TEXT = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Whether `text` is written as a decimal number (any size): what boundedDecimalProblem judges. */
export function looksLikeDecimal(text: string): boolean {
  const m = NUMBER_TEXT.exec(text.trim());
  return !!m && (m[1]! + (m[2] ?? '')).length > 0;
}

/**
 * Why the decimal text `text` is out of bounds, or undefined when it is within them (or is not
 * a number at all: that is for the caller's schema to say).
 */
export function boundedDecimalProblem(text: string): string | undefined {
  const t = text.trim();
  if (!looksLikeDecimal(t)) return undefined;
  if (t.length > MAX_NUMBER_TEXT) return `number longer than ${MAX_NUMBER_TEXT} characters`;
  const m = NUMBER_TEXT.exec(t)!;
  const int = m[1] ?? '';
  const digits = int + (m[2] ?? '');
  const first = digits.search(/[1-9]/);
  if (first < 0) return undefined; // zero, however written
  if (digits.slice(first).replace(/0+$/, '').length > MAX_SIGNIFICANT_DIGITS)
    return `number with more than ${MAX_SIGNIFICANT_DIGITS} significant digits`;
  const exponent = int.length - 1 - first + Number(m[3] ?? 0);
  if (Math.abs(exponent) > MAX_EXPONENT) return `number with an exponent beyond ±${MAX_EXPONENT}`;
  return undefined;
}

/**
 * JSON text beyond a bound: a number literal out of bounds, or more values than the caller
 * allows. `message` is the reason, safe to answer with (no digits echoed).
 */
export class OutOfBoundsJson extends SyntaxError {
  constructor(reason: string) {
    super(reason);
    this.name = 'OutOfBoundsJson';
  }
}

export interface ParseJsonOptions {
  /**
   * Most values (numbers, strings, literals, objects, arrays) the text may hold: a webhook body
   * has a few dozen; 40,000 numbers in 256 KB would hold the event loop for no purpose.
   */
  maxValues?: number;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * Parse JSON text keeping every number as a LosslessNumber. Throws SyntaxError on bad JSON
 * (a duplicate key included), OutOfBoundsJson (a SyntaxError too) on a number literal beyond
 * the bounds above or more values than `options.maxValues`.
 *
 * Linear and fast on any body: one pass over the text finds each number literal in a value
 * position and writes it as a string tagged with a random nonce, then the native JSON.parse
 * reads the rest and a reviver turns the tagged strings back into LosslessNumbers (lossless-json's
 * own parser took 50 to 200 ms on a 256 KB body of long strings). Text of the body cannot
 * forge a tag: the nonce is drawn for each parse.
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const maxValues = options.maxValues ?? Number.POSITIVE_INFINITY;
  // Every value after the first in a container follows a comma; every container opens once.
  let values = 1;
  // randomUUID (122 random bits) draws from a pooled buffer: a randomBytes call per parse was a system call each.
  const tag = `#n${randomUUID()}:`;
  const out: string[] = [];
  // Containers: true for an object (whose next string, after `{` or `,`, is a key), false for an array.
  const stack: boolean[] = [];
  // Keys written in the text; JSON.parse keeps one of two equal keys, so fewer keys in what it
  // built than here means a duplicate (counted, not compared: no key is read twice).
  let keysWritten = 0;
  let expectKey = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (expectKey) {
        keysWritten++;
        expectKey = false;
      }
    } else if (c === 0x7b) {
      if (++values > maxValues) throw new OutOfBoundsJson(`more than ${maxValues} values`);
      stack.push(true);
      expectKey = true;
    } else if (c === 0x5b) {
      if (++values > maxValues) throw new OutOfBoundsJson(`more than ${maxValues} values`);
      stack.push(false);
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      if (++values > maxValues) throw new OutOfBoundsJson(`more than ${maxValues} values`);
      expectKey = stack[stack.length - 1] === true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2b || d === 0x2d || d === 0x65 || d === 0x45)) break;
      }
      const literal = text.slice(i, end);
      // Only a well-formed literal in a value position is tagged; anything else is left for JSON.parse to refuse.
      if (!expectKey && JSON_NUMBER.test(literal)) {
        // Up to 40 characters without an exponent cannot be out of bounds: the common case, checked for free.
        const problem =
          literal.length <= MAX_SIGNIFICANT_DIGITS && !/[eE]/.test(literal)
            ? undefined
            : boundedDecimalProblem(literal);
        if (problem) throw new OutOfBoundsJson(problem);
        out.push(text.slice(from, i), `"${tag}${literal}"`);
        from = end;
      }
      i = end - 1;
    }
  }
  out.push(text.slice(from));
  const parsed: unknown = JSON.parse(out.join(''));
  if (revive(parsed, tag) !== keysWritten) throw new SyntaxError('Duplicate key encountered');
  return typeof parsed === 'string' && parsed.startsWith(tag) ? new LosslessNumber(parsed.slice(tag.length)) : parsed;
}

/**
 * Turns the tagged strings of a freshly parsed tree back into LosslessNumbers, in place, and
 * counts the object keys it holds: JSON.parse keeps one of two equal keys, so fewer than the
 * text wrote means a duplicate. A walk with a stack of its own rather than a JSON.parse reviver:
 * the reviver cost several times the parse itself on every wallet answer, and any depth is fine.
 */
function revive(root: unknown, tag: string): number {
  let keys = 0;
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const node = todo.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') {
          if (v.startsWith(tag)) node[i] = new LosslessNumber(v.slice(tag.length));
        } else if (v !== null && typeof v === 'object') todo.push(v);
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      keys++;
      const v = obj[k];
      // An own key, even one named __proto__: the store sets the data property.
      if (typeof v === 'string') {
        if (v.startsWith(tag)) obj[k] = new LosslessNumber(v.slice(tag.length));
      } else if (v !== null && typeof v === 'object') todo.push(v);
    }
  }
  return keys;
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
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // Runs on every wallet answer: plain stores, and a new key string only for a key that changes.
  for (const k of Object.keys(src)) {
    const c = k.charCodeAt(0);
    const key =
      c >= 0x41 && c <= 0x5a
        ? String.fromCharCode(c + 32) + k.slice(1)
        : c < 0x80
          ? k
          : k.charAt(0).toLowerCase() + k.slice(1);
    if (key !== k && Object.hasOwn(src, key)) continue;
    // A key named __proto__ is data, not the object's prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: camelKeys(src[k]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = camelKeys(src[k]);
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
  z.string().superRefine((s, ctx) => {
    // Bounds first: a huge number is refused without ever being read as a Decimal.
    const problem = boundedDecimalProblem(s) ?? (isFiniteDecimal(s) ? undefined : 'not a decimal number');
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

function isFiniteDecimal(s: string): boolean {
  try {
    return new Decimal(s).isFinite();
  } catch {
    return false;
  }
}
