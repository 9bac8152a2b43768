/**
 * The shared fake Slack has no conversations.history / conversations.replies. This proxy
 * sits in front of it, answers those two from the fake's own user-visible model (so a
 * message the fake really posted is really found), and forwards every other call untouched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeMessage, FakeSlack } from '../helpers/fake-slack.js';

export interface HistoryProxy {
  url: string;
  /** conversations.history / replies calls seen, with their arguments. */
  lookups: Array<{ method: string; args: Record<string, string> }>;
  close(): Promise<void>;
}

function publicMessage(m: FakeMessage, withMetadata: boolean): Record<string, unknown> {
  const { via: _via, channel: _channel, metadata, ...rest } = m;
  return withMetadata && metadata ? { ...rest, metadata } : rest;
}

export async function startHistoryProxy(fake: FakeSlack): Promise<HistoryProxy> {
  const lookups: HistoryProxy['lookups'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
      const method = path.replace(/^\/api\//, '');
      if (method === 'conversations.history' || method === 'conversations.replies') {
        const args = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
        lookups.push({ method, args });
        const oldest = Number(args.oldest ?? 0);
        const meta = args.include_all_metadata === 'true' || args.include_all_metadata === '1';
        const channel = args.channel ?? '';
        const all = method === 'conversations.history'
          ? fake.channel(channel).filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast).reverse()
          : fake.thread(channel, args.ts ?? '');
        const messages = all.filter((m) => Number(m.ts) >= oldest).slice(0, Number(args.limit ?? 100)).map((m) => publicMessage(m, meta));
        const body = JSON.stringify({ ok: true, messages, has_more: false, response_metadata: { next_cursor: '' } });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
      fetch(`${fake.origin}${req.url}`, { method: req.method ?? 'POST', headers, body: raw.length ? raw : undefined })
        .then(async (r) => {
          const text = await r.text();
          const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
          const ra = r.headers.get('retry-after');
          if (ra) out['retry-after'] = ra;
          if (!res.destroyed) {
            res.writeHead(r.status, out);
            res.end(text);
          }
        })
        .catch(() => {
          if (!res.destroyed) res.destroy();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    lookups,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
