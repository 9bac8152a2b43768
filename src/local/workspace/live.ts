/**
 * Live updates: the page keeps one server-sent-events stream open and refetches its state
 * when told something changed. Nothing but a nudge goes down the stream, so what each
 * person sees is always computed for them (view.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeSlack } from '../slack-api.js';

export interface LiveUpdates {
  /** Answers GET /local/events: the stream stays open until the page goes. */
  open(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

export function startLiveUpdates(api: Pick<FakeSlack, 'onChange'>): LiveUpdates {
  const streams = new Set<ServerResponse>();
  let pending: NodeJS.Timeout | undefined;
  const unsubscribe = api.onChange(() => {
    // Many API calls arrive together (a card and its thread): one nudge for all of them.
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      for (const s of streams) s.write('event: change\ndata: {}\n\n');
    }, 30);
  });
  const keepAlive = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  return {
    open(req, res) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 1000\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
    },
    close() {
      unsubscribe();
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}
