/**
 * Reading Web API arguments the way Slack does (form strings, JSON-encoded fields) and the
 * checks Slack applies to them; a failed check throws ApiError, answered as HTTP 200 `ok: false`.
 */
import type { Json } from './types.js';

export class ApiError extends Error {
  constructor(
    readonly error: string,
    readonly messages: string[] = [],
  ) {
    super(error);
  }
}

// Fields that WebClient JSON-encodes inside form bodies; decoded so tests assert on objects.
export const STRUCTURED_FIELDS = new Set([
  'blocks',
  'attachments',
  'view',
  'metadata',
  'files',
  'unfurls',
  'user_auth_blocks',
]);

export function decodeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

export function requireString(args: Json, key: string, error: string): string {
  const v = str(args[key]);
  if (!v) throw new ApiError(error, [`[ERROR] missing required field: ${key}`]);
  return v;
}

export function asArray(v: unknown): unknown[] {
  const d = decodeJson(v);
  if (!Array.isArray(d)) throw new ApiError('invalid_arguments', ['[ERROR] expected a JSON array']);
  return d;
}

export function checkTextLength(text: string | undefined): void {
  if (text && text.length > 40_000) throw new ApiError('msg_too_long');
}

// The Block Kit limits that most often break real apps; Slack rejects such payloads.
export function checkBlocks(v: unknown, max: number, error = 'invalid_blocks'): unknown[] {
  const d = decodeJson(v);
  if (!Array.isArray(d)) throw new ApiError('invalid_blocks_format');
  if (d.length > max) throw new ApiError(error, [`[ERROR] no more than ${max} items allowed [json-pointer:/blocks]`]);
  d.forEach((b, i) => {
    const block = (b ?? {}) as Json;
    if (typeof block.type !== 'string')
      throw new ApiError(error, [`[ERROR] missing required field: type [json-pointer:/blocks/${i}]`]);
    const text = ((block.text ?? {}) as Json).text;
    if (block.type === 'section' && typeof text === 'string' && text.length > 3000) {
      throw new ApiError(error, [`[ERROR] must be less than 3001 characters [json-pointer:/blocks/${i}/text/text]`]);
    }
    if (block.type === 'header' && typeof text === 'string' && text.length > 150) {
      throw new ApiError(error, [`[ERROR] must be less than 151 characters [json-pointer:/blocks/${i}/text/text]`]);
    }
    const id = block.block_id;
    if (typeof id === 'string' && id.length > 255)
      throw new ApiError(error, [`[ERROR] block_id too long [json-pointer:/blocks/${i}/block_id]`]);
  });
  return d;
}

/**
 * A ts as a fixed-width string that sorts like the time it names (`<seconds>.<micros>`);
 * ts values have 16 significant digits, too many to compare safely as doubles.
 */
export function tsKey(ts: string, error = 'invalid_ts'): string {
  const m = /^(\d{1,12})(?:\.(\d{1,6})\d*)?$/.exec(ts.trim());
  if (!m) throw new ApiError(error);
  return `${m[1]!.padStart(12, '0')}.${(m[2] ?? '').padEnd(6, '0')}`;
}

export function compareTs(a: string, b: string): number {
  const ka = tsKey(a);
  const kb = tsKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
