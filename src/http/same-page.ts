/**
 * The guard of endpoints that only a page (or tool) on this machine may drive: the local
 * workspace's page and the sandbox's test endpoints (`/sandbox/*`). Whoever can drive them acts
 * as anyone in the policy, or makes up verified-looking deposits, so only they may.
 * - The Host must be `localhost` or an IP literal: a DNS-rebinding page (some domain name
 *   resolving to 127.0.0.1) cannot read the state or post actions. It is matched whole, not
 *   parsed as a URL (which reads `evil.com@127.0.0.1` or `localhost:4000#.evil.com` as loopback).
 * - Posts must be JSON (a cross-site form or `text/plain` fetch cannot send that without a
 *   CORS preflight, which these servers never grant) and, when the browser says where they come
 *   from, from this very origin.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

export interface SamePageWords {
  /** "the local workspace answers only on localhost or an IP address" */
  wrongHost: string;
  /** "requests must come from the workspace page itself" */
  foreignOrigin: string;
}

const WORKSPACE: SamePageWords = {
  wrongHost: 'the local workspace answers only on localhost or an IP address',
  foreignOrigin: 'requests must come from the workspace page itself',
};

/**
 * `localhost`, a dotted IPv4 address or a bracketed IPv6 address, any case, with an optional
 * port. Other numeric forms a URL parser would take as IPv4 (`2130706433`, `0x7f.1`, `127.1`)
 * are refused: no browser or tool of ours sends them, and a lenient reading is what let
 * look-alike hosts through.
 */
const HOST = /^(?:(localhost)|(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9a-f:.]+)\])(?::(\d{1,5}))?$/i;

function localHost(host: string): boolean {
  const m = HOST.exec(host);
  if (!m) return false;
  const [, name, v4, v6, port] = m;
  if (port !== undefined && Number(port) > 65535) return false;
  if (name) return true;
  if (v4) return isIP(v4) === 4;
  return isIP(v6!) === 6;
}

/** Why the request is refused, or undefined. `post`: it carries a body that acts (JSON only, same origin). */
export function foreignRequest(
  req: { headers: IncomingHttpHeaders },
  post: boolean,
  words: SamePageWords = WORKSPACE,
): string | undefined {
  const host = req.headers.host ?? '';
  if (!localHost(host)) return words.wrongHost;
  if (!post) return undefined;
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return 'the body must be application/json';
  // Browsers send the origin's host in lower case; `Origin: null` (a sandboxed frame, a file) is foreign.
  const origin = req.headers.origin?.toLowerCase();
  const self = host.toLowerCase();
  if (origin !== undefined && origin !== `http://${self}` && origin !== `https://${self}`) return words.foreignOrigin;
  return undefined;
}
