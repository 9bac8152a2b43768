/**
 * A request's body, read whole up to a size limit: the one reader of the servers the app runs
 * (the webhook and verification routes, the embedded sandbox, the local workspace's page API).
 * A body over `maxBytes`, declared by its content-length or found while reading, is refused
 * with BodyTooLarge as soon as it is known; whatever still comes is dropped, never kept.
 */
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`body larger than ${maxBytes} bytes`);
  }
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      reject(new BodyTooLarge(maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        reject(new BodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (err) => {
      if (!done) {
        done = true;
        reject(err);
      }
    });
  });
}
