/**
 * The sandbox's test endpoints (`/sandbox/*`) answer only to tools on this machine (issue 20,
 * point 6): JSON posts only, a loopback or IP `Host` read whole (no URL parsing), no foreign
 * `Origin`, as the local workspace's page, and a loopback peer unless the sandbox is exposed on
 * purpose (SANDBOX_HOST). A web page's `text/plain` post (no CORS preflight) or a DNS-rebinding host
 * name would otherwise make up deposits that the app then shows as verified.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { testEndpointRefusal } from '../../src/sandbox/http.js';
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
function postWithHost(
  path: string,
  host: string,
  body: string,
  o: { method?: string; headers?: Record<string, string> } = {},
): Promise<number> {
  const url = new URL(path, sb!.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.method ?? 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...o.headers,
        },
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

  it('read the Host whole: localhost or an IP literal, any case, nothing a URL parser would bend', async () => {
    sb = await createSandbox({ seed: false });
    expect((await generate(sb, CLIENT, 'USDT', 'BSC')).status).toBe(200);
    const text = JSON.stringify(deposit);
    const p = sb.port;
    for (const host of [
      `127.0.0.1.evil.example:${p}`,
      '127.0.0.1.evil.example',
      `evil.example@127.0.0.1:${p}`,
      'evil.example@127.0.0.1',
      `localhost:${p}#.evil.example`,
      `localhost:${p}/.evil.example`,
      `[::1].evil.example:${p}`,
      `localhost:${p}:${p}`,
      `localhost:99999`,
      '999.0.0.1',
      // Numeric forms a URL parser reads as 127.0.0.1: refused (no tool of ours sends them).
      '2130706433',
      '127.1',
    ]) {
      expect(await postWithHost('/sandbox/deposits', host, text), host).toBe(403);
    }
    expect(sb.transactions()).toEqual([]);
    let made = 0;
    for (const host of [`[::1]:${p}`, '[::1]', `LOCALHOST:${p}`, 'LocalHost', `127.0.0.1:${p}`, '127.0.0.1']) {
      expect(await postWithHost('/sandbox/deposits', host, text), host).toBe(201);
      made++;
    }
    // A browser on LOCALHOST sends its origin in lower case: the same page.
    const origin = { origin: `http://localhost:${p}` };
    expect(await postWithHost('/sandbox/deposits', `LOCALHOST:${p}`, text, { headers: origin })).toBe(201);
    made++;
    expect(sb.transactions()).toHaveLength(made);
  });

  it('refuse Origin: null and any other method with a body the same way as POST', async () => {
    sb = await createSandbox({ seed: false });
    expect((await generate(sb, CLIENT, 'USDT', 'BSC')).status).toBe(200);
    const text = JSON.stringify(deposit);
    const host = `127.0.0.1:${sb.port}`;
    // A sandboxed frame or a file:// page sends `Origin: null`.
    const nul = await call(sb, 'POST', '/sandbox/deposits', { body: deposit, headers: { origin: 'null' } });
    expect(nul.status).toBe(403);
    expect(nul.json.error).toMatch(/not to other web pages/);
    // PUT: a text/plain body, or JSON from another site, is refused before any route is looked at.
    const put = await call(sb, 'PUT', '/sandbox/deposits', { raw: text, headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(403);
    expect(put.json.error).toBe('the body must be application/json');
    const foreignPut = await call(sb, 'PUT', '/sandbox/deposits', {
      body: deposit,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreignPut.status).toBe(403);
    expect(await postWithHost('/sandbox/deposits', `evil.example@${host}`, text, { method: 'PUT' })).toBe(403);
    expect(sb.transactions()).toEqual([]);
    // PUT from this machine passes the guard and meets the route's own answer (POST only).
    expect((await call(sb, 'PUT', '/sandbox/deposits', { body: deposit })).status).toBe(405);
  });

  it('answer only a loopback peer, unless the sandbox is deliberately exposed (SANDBOX_HOST)', async () => {
    const req = (remoteAddress: string | undefined, host = '127.0.0.1:4000') => ({
      headers: { host, 'content-type': 'application/json' },
      socket: { remoteAddress },
    });
    for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2']) {
      expect(testEndpointRefusal(req(peer), 'POST', false), peer).toBeUndefined();
      expect(testEndpointRefusal(req(peer), 'GET', false), peer).toBeUndefined();
    }
    // No Host at all (node:http fills one in, so only here).
    expect(testEndpointRefusal(req('127.0.0.1', ''), 'GET', false)).toMatch(/only on localhost/);
    for (const peer of ['192.168.1.20', '10.0.0.7', '::ffff:10.0.0.7', 'fe80::1', '128.0.0.1', undefined]) {
      expect(testEndpointRefusal(req(peer), 'POST', false), String(peer)).toBe(
        "the sandbox's test endpoints answer only to this machine",
      );
      expect(testEndpointRefusal(req(peer), 'GET', false), String(peer)).toBeDefined();
      // Exposed: another machine may call, and the Host/Origin/JSON guard still applies.
      expect(testEndpointRefusal(req(peer, '192.168.1.5:4000'), 'POST', true), String(peer)).toBeUndefined();
      expect(testEndpointRefusal(req(peer, 'evil.example'), 'POST', true), String(peer)).toMatch(/only on localhost/);
    }
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
