/**
 * The HTTP wire: request bodies as WebClient and curl send them (JSON, form, multipart) and
 * answers written the way Slack writes them, recorded on the call they answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json, RecordedCall } from './types.js';

export function send(
  res: ServerResponse,
  call: RecordedCall | undefined,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (call) {
    call.status = status;
    call.response = body;
  }
  // The client may have given up (timeout) while we were delaying.
  if (res.destroyed || res.writableEnded) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    ...headers,
  });
  res.end(text);
}

export interface ParsedBody {
  fields: Json;
  /** The first file part of a multipart body. */
  file?: Buffer;
}

export async function parseBody(req: IncomingMessage, raw: Buffer): Promise<ParsedBody> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return { fields: {} };
  if (type === 'application/json') {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return { fields: value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : { body: value } };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const fields: Json = {};
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) fields[k] = v;
    return { fields };
  }
  if (type === 'multipart/form-data') {
    // Node's fetch Request already implements a spec-compliant multipart parser.
    const form = await new Request('http://fake/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type']! },
      body: raw,
    }).formData();
    const fields: Json = {};
    let file: Buffer | undefined;
    for (const [k, v] of form) {
      if (typeof v === 'string') fields[k] = v;
      else {
        const bytes = Buffer.from(await v.arrayBuffer());
        file ??= bytes;
        fields[k] = { filename: v.name, size: bytes.length };
      }
    }
    return file ? { fields, file } : { fields };
  }
  return { fields: {} };
}

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice('Bearer '.length) : undefined;
}
