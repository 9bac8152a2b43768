import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLarge, readBody } from '../../src/http/body.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A server answering with what readBody gave it: the body's length, or 413. */
async function start(max: number): Promise<string> {
  server = createServer((req, res) => {
    readBody(req, max).then(
      (b) => res.end(`ok ${b.length} ${b.toString('utf8').slice(0, 5)}`),
      (err: unknown) => {
        res.statusCode = err instanceof BodyTooLarge ? 413 : 500;
        res.setHeader('connection', 'close');
        res.end(err instanceof Error ? err.message : 'error');
      },
    );
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`;
}

describe('reading a request body up to a limit', () => {
  it('gives the whole body when it is within the limit, and an empty one as empty', async () => {
    const url = await start(10);
    expect(await (await fetch(url, { method: 'POST', body: 'hello12345' })).text()).toBe('ok 10 hello');
    expect(await (await fetch(url, { method: 'POST' })).text()).toBe('ok 0 ');
  });

  it('refuses a body over the limit, declared or streamed, saying the limit', async () => {
    const url = await start(10);
    const declared = await fetch(url, { method: 'POST', body: 'x'.repeat(11) });
    expect([declared.status, await declared.text()]).toEqual([413, 'body larger than 10 bytes']);
    // No content-length: found while reading.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('x'.repeat(8)));
        c.enqueue(new TextEncoder().encode('x'.repeat(8)));
        c.close();
      },
    });
    const streamed = await fetch(url, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
  });
});
