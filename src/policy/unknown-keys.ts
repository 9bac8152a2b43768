/**
 * Keys a policy file has and the schema does not know. Every object of the schema is strict, so
 * zod reports them (`unrecognized_keys`); this words each one as the person who wrote the file
 * needs it: where it is, and the key they most likely meant, taken from the keys the schema knows
 * at that very place ("withdrawals.daily_limt is not a policy key; did you mean daily_limit?").
 * When nothing known is close, guessing would mislead: the keys of that place are listed instead.
 */
import { z } from 'zod';

type Path = readonly PropertyKey[];
export interface UnknownKeysIssue {
  path: Path;
  keys: readonly string[];
}

const PLAIN = /^[\w.-]+$/;
const SEGMENT_MAX = 60;

/** A path as a person finds it in the file: `withdrawals.tiers.value[1].aprovals` (odd keys quoted, long ones cut). */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      const cut = s.length > SEGMENT_MAX ? `${s.slice(0, SEGMENT_MAX)}…` : s;
      out += PLAIN.test(s) ? `${out ? '.' : ''}${cut}` : `[${JSON.stringify(cut)}]`;
    }
  }
  return out;
}

/** What a value is checked by once defaults, optionals and transforms are looked through. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

function child(schema: z.ZodType, seg: PropertyKey): z.ZodType | undefined {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    // Own keys only: "constructor" is not a key of the schema because every object has one.
    const shape = s.shape as Record<string, z.ZodType>;
    return typeof seg === 'string' && Object.hasOwn(shape, seg) ? shape[seg] : (s.def.catchall as z.ZodType);
  }
  if (s instanceof z.ZodArray) return s.element as z.ZodType;
  if (s instanceof z.ZodRecord) return s.valueType as z.ZodType;
  return undefined;
}

/** The keys the object schema found at `path` knows, in the schema's order (none when no object is there). */
export function knownKeysAt(schema: z.ZodType, path: Path): string[] {
  let s: z.ZodType | undefined = schema;
  for (const seg of path) s = s && child(s, seg);
  const at = s && unwrap(s);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of neighbours count one each. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The known name nearest `name`, when it is close enough to be what was meant: at most a third
 * of its letters wrong (at least one). Case, and `-` for `_`, are not differences.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > 100) return undefined; // no one misspells that much; and the distance is quadratic
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(norm(name), norm(k));
    if (d <= Math.max(1, Math.floor(k.length / 3)) && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}

/** One line per key of an `unrecognized_keys` issue, each with its suggestion or the keys of that place. */
export function unknownKeyLines(schema: z.ZodType, issue: UnknownKeysIssue): string[] {
  const known = knownKeysAt(schema, issue.path);
  return issue.keys.map((key) => {
    const near = nearestName(key, known);
    const hint = near ? `; did you mean ${near}?` : known.length ? `; the keys here are ${known.join(', ')}` : '';
    return `${formatPath([...issue.path, key])} is not a policy key${hint}`;
  });
}

/** Deletes from `raw` (the caller's own fresh copy) the keys the issues name as unknown. */
export function dropUnknownKeys(raw: unknown, issues: readonly UnknownKeysIssue[]): void {
  for (const issue of issues) {
    let at: unknown = raw;
    for (const seg of issue.path)
      at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[seg] : undefined;
    if (at !== null && typeof at === 'object') for (const k of issue.keys) delete (at as Record<string, unknown>)[k];
  }
}

/**
 * Where the data has a `__proto__` key. zod skips one in a record (the per-currency maps) and in a
 * catch-all (`schedule`) without a word, so that it cannot replace the result's prototype; no place
 * of the policy knows that key, so the loader reports it wherever it is. A loop with a visited set,
 * not recursion: YAML aliases may share a node, or nest one in itself.
 */
export function protoKeyPlaces(raw: unknown): PropertyKey[][] {
  const out: PropertyKey[][] = [];
  const seen = new Set<object>();
  const todo: Array<[unknown, PropertyKey[]]> = [[raw, []]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [v, path] = next;
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    if (Object.hasOwn(v, '__proto__')) out.push(path);
    if (Array.isArray(v)) for (const [i, x] of v.entries()) todo.push([x, [...path, i]]);
    else for (const [k, x] of Object.entries(v)) todo.push([x, [...path, k]]);
  }
  return out;
}
