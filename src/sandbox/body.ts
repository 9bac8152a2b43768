/**
 * Request-body helpers shared by the handlers: lossless JSON parsing (amounts keep their
 * digits), zod issue formatting for error messages, and header parsing.
 */
import type { z } from 'zod';
import { isLosslessNumber } from 'lossless-json';
import { parseJson } from '../wallet/json.js';
import type { SandboxRequest } from './http.js';

export type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/** The body as a JSON object with LosslessNumbers in place of numbers. */
export function jsonObject(req: SandboxRequest): Parsed {
  if (req.body.trim() === '') return { ok: false, message: 'A JSON request body is required' };
  let value: unknown;
  try {
    value = parseJson(req.body);
  } catch (err) {
    return { ok: false, message: `Malformed JSON body: ${(err as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'The request body must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * LosslessNumbers to plain numbers, recursively. Unlike json.ts's toPlain this never
 * throws: a number JS cannot hold (1e999999) becomes Infinity or a rounded value, which
 * validation then refuses; it is only used where no amount lives.
 */
export function plain(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.toString());
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Same, with numbers turned into plain JS numbers (for bodies that carry no amounts). */
export function plainJsonObject(req: SandboxRequest): Parsed {
  const parsed = jsonObject(req);
  return parsed.ok ? { ok: true, value: plain(parsed.value) as Record<string, unknown> } : parsed;
}

/** Names of required fields that are absent or null, for a "missing fields" message. */
export function missingFields(value: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields.filter((f) => value[f] === undefined || value[f] === null || value[f] === '');
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const field = i.path.map(String).join('.');
      const missing = i.code === 'invalid_type' && /received undefined/.test(i.message);
      return field ? `${field}: ${missing ? 'is required' : i.message}` : i.message;
    })
    .join('; ');
}

export function header(req: SandboxRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export interface MediaType {
  type: string;
  params: Record<string, string>;
}

/** `type/subtype; a=b; c="d"`, tolerant of spacing and case. */
export function parseMediaType(value: string): MediaType {
  const [type = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    const val = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (key) params[key] = val;
  }
  return { type: type.trim().toLowerCase(), params };
}

/** Query parameters by lower-cased name, first value wins (ASP.NET binds query names case-insensitively). */
export function queryMap(query: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of query) if (!out.has(k.toLowerCase())) out.set(k.toLowerCase(), v);
  return out;
}
