/**
 * The page's request guard: only the workspace page itself may drive the workspace.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * Whoever can drive this page acts as anyone in the policy, so only the page itself may.
 * - The Host must be `localhost` or an IP literal: a DNS-rebinding page (some domain name
 *   resolving to 127.0.0.1) cannot read the state or post actions.
 * - Posts must be JSON (a cross-site form or `text/plain` fetch cannot send that without a
 *   CORS preflight, which this server never grants) and, when the browser says where they come
 *   from, from this very origin.
 * Returns why the request is refused, or undefined.
 */
export function foreignRequest(req: IncomingMessage, post: boolean): string | undefined {
  const host = req.headers.host ?? '';
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return 'bad Host header';
  }
  if (hostname !== 'localhost' && !isIP(hostname))
    return 'the local workspace answers only on localhost or an IP address';
  if (!post) return undefined;
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return 'the body must be application/json';
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    return 'requests must come from the workspace page itself';
  }
  return undefined;
}
