/**
 * A verification URL for the sandbox that holds each call until the test releases it, then
 * forwards it, with its whole query, to the app's real verify route: the withdrawal stays
 * `executing` in the app for as long as the test needs, with no timing involved.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldCall {
  reference: string;
  /** The call's whole query as the service sent it (forwarded as it is). */
  query: URLSearchParams;
  release(): void;
}

export interface Gate {
  url: string;
  /** Where held calls go once released (the app's verify URL), set once the app runs. */
  target: string;
  held: HeldCall[];
  close(): Promise<void>;
}

export async function startGate(): Promise<Gate> {
  const gate: Gate = { url: '', target: '', held: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const reference = query.get('reference') ?? '';
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    gate.held.push({ reference, query, release });
    void released.then(async () => {
      try {
        const answer = await fetch(`${gate.target}?${query}`);
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(await answer.text());
      } catch {
        // The app did not answer (it closed its server): as a proxy would say it.
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":"bad gateway"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  gate.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/verify`;
  gate.close = () =>
    new Promise<void>((r) => {
      for (const h of gate.held) h.release();
      server.close(() => r());
      server.closeAllConnections();
    });
  return gate;
}
