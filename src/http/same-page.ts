/**
 * The guard of endpoints that only a page (or tool) on this machine may drive: the local
 * workspace's page and the sandbox's test endpoints (`/sandbox/*`). Whoever can drive them acts
 * as anyone in the policy, or makes up verified-looking deposits, so only they may.
 * - The Host must be `localhost` or an IP literal: a DNS-rebinding page (some domain name
 *   resolving to 127.0.0.1) cannot read the state or post actions.
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

/** Why the request is refused, or undefined. `post`: it carries a body that acts (JSON only, same origin). */
export function foreignRequest(
  req: { headers: IncomingHttpHeaders },
  post: boolean,
  words: SamePageWords = WORKSPACE,
): string | undefined {
  const host = req.headers.host ?? '';
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return 'bad Host header';
  }
  if (hostname !== 'localhost' && !isIP(hostname)) return words.wrongHost;
  if (!post) return undefined;
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return 'the body must be application/json';
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) return words.foreignOrigin;
  return undefined;
}
