/**
 * A sanctions list served over loopback HTTP that a test changes between steps: one file
 * (`/list.txt`, one address per line) and the per-asset layout of the upstream lists
 * (`/lists/sanctioned_addresses_<ASSET>.txt`), or 503 while "down".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListServer {
  /** The single-file URL. */
  url: string;
  /** The per-asset layout's base URL. */
  base: string;
  /** What `/list.txt` serves. */
  text: string;
  /** Per-asset files by name (sanctioned_addresses_ETH.txt → text). */
  files: Map<string, string>;
  down: boolean;
  /** Requests served so far. */
  hits: number;
  close(): Promise<void>;
}

export async function startListServer(text = ''): Promise<ListServer> {
  const s: ListServer = { url: '', base: '', text, files: new Map(), down: false, hits: 0, close: async () => {} };
  const server = createServer((req, res) => {
    s.hits += 1;
    if (s.down) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      return void res.end('unavailable');
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const body = path === '/list.txt' ? s.text : s.files.get(path.replace(/^\/lists\//, ''));
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  s.url = `http://127.0.0.1:${port}/list.txt`;
  s.base = `http://127.0.0.1:${port}/lists`;
  s.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return s;
}

/** `n` distinct EVM addresses, one a line: the bulk of a realistic list, so that one delisting is a small share of it. */
export function filler(n: number): string {
  return Array.from({ length: n }, (_, i) => `0x${(0xf111 + i).toString(16).padStart(40, '0')}\n`).join('');
}
