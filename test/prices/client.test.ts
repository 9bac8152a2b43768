/**
 * The price call's deadline (issue 24 review B1): a real HTTP server on loopback that trickles
 * its answer one byte every 100 ms (axios' idle timeout never fires) is cut at the total deadline
 * and refused as late.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPriceFetch } from '../../src/prices/client.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function trickling(): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const body = `{"bitcoin":{"usd":5}}${' '.repeat(1000)}`;
    let i = 0;
    const t = setInterval(() => {
      if (i >= body.length || res.destroyed) {
        clearInterval(t);
        res.end();
        return;
      }
      res.write(body[i++]);
    }, 100);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('the price call', () => {
  it('refuses a trickling answer as late at the total deadline', async () => {
    const fetch = createPriceFetch({ baseUrl: await trickling(), timeoutMs: 800 });
    const started = Date.now();
    const answer = await fetch(['bitcoin']);
    expect(answer).toEqual({ ok: false, reason: 'late: no answer within 800 ms' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
