/**
 * The sandbox's test endpoints (`/sandbox/*`) answer only to tools on this machine (issue 20,
 * point 6): JSON posts only, a loopback or IP `Host`, no foreign `Origin`, as the local
 * workspace's page. A web page's `text/plain` post (no CORS preflight) or a DNS-rebinding host
 * name would otherwise make up deposits that the app then shows as verified.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { call, generate } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const CLIENT = 'guard@client.test';
const deposit = { to: CLIENT, amount: '5', currency: 'USDT', network: 'BSC' };
const ENDPOINTS: Array<[string, unknown]> = [
  ['/sandbox/deposits', deposit],
  [
    '/sandbox/remittances',
    { to: '0x4444444444444444444444444444444444444444', amount: '5', currency: 'USDT', network: 'BSC' },
  ],
];

/** A POST with a Host header of our choosing (fetch will not send one), as a rebinding page's request arrives. */
function postWithHost(path: string, host: string, body: string): Promise<number> {
  const url = new URL(path, sb!.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the sandbox test endpoints', () => {
  it('refuse text/plain posts, foreign origins and host names; accept JSON from this machine', async () => {
    sb = await createSandbox({ seed: false });
    expect((await generate(sb, CLIENT, 'USDT', 'BSC')).status).toBe(200);

    for (const [path, body] of ENDPOINTS) {
      const text = JSON.stringify(body);
      // A cross-site "simple" request: text/plain needs no preflight.
      const plain = await call(sb, 'POST', path, { raw: text, headers: { 'content-type': 'text/plain' } });
      expect(plain.status, path).toBe(403);
      expect(plain.json.error, path).toBe('the body must be application/json');
      // No content type at all is no better.
      expect((await call(sb, 'POST', path, { raw: text })).status, path).toBe(403);
      // JSON from another web site.
      const foreign = await call(sb, 'POST', path, { body, headers: { origin: 'https://evil.example' } });
      expect(foreign.status, path).toBe(403);
      expect(foreign.json.error, path).toMatch(/not to other web pages/);
      // A host name resolving to loopback (DNS rebinding).
      expect(await postWithHost(path, 'evil.example', text), path).toBe(403);
      expect(await postWithHost(path, `evil.example:${sb.port}`, text), path).toBe(403);
    }
    // Nothing was made up.
    expect(sb.transactions()).toEqual([]);

    // The sandbox's own tools (the CLI, the local workspace, tests): JSON, IP host, no Origin.
    const ok = await call(sb, 'POST', '/sandbox/deposits', { body: deposit });
    expect(ok.status).toBe(201);
    expect(sb.transactions()).toHaveLength(1);
    // localhost, and an Origin equal to the sandbox's own, are its own.
    expect(await postWithHost('/sandbox/deposits', `localhost:${sb.port}`, JSON.stringify(deposit))).toBe(201);
    const same = await call(sb, 'POST', '/sandbox/deposits', { body: deposit, headers: { origin: sb.url } });
    expect(same.status).toBe(201);
  });

  it('leave the wallet service endpoints as they are (their callers are servers, not pages)', async () => {
    sb = await createSandbox({ seed: false });
    const res = await call(sb, 'POST', '/api/v2/auth/login', {
      raw: '{}',
      headers: { 'content-type': 'text/plain', origin: 'https://elsewhere.example' },
    });
    expect(res.status).not.toBe(403);
  });
});
