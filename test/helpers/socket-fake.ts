/**
 * Slack's side of Socket Mode on a loopback port: hands out single-use connection URLs
 * (through the fake Web API's apps.connections.open), greets each connection with
 * `hello`, pushes envelopes and resolves with the app's ack.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, WebSocket } from 'ws';
import type { SocketUrlSource } from './fake-slack.js';
import { SLACK_IDS } from './slack-ids.js';

export type Json = Record<string, unknown>;

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface SocketAck {
  envelope_id: string;
  payload?: Json;
}

export interface EnvelopeOptions {
  /** Slack sets it true for slash commands and interactivity, false for events (default follows that). */
  accepts_response_payload?: boolean;
  /** How long to wait for the ack (default 3000 ms: Slack's own deadline). */
  timeoutMs?: number;
  /** events_api redeliveries carry these. */
  retry_attempt?: number;
  retry_reason?: string;
}

export interface SocketFakeOptions {
  appId?: string;
  /** Default ack timeout for sendEnvelope. */
  ackTimeoutMs?: number;
}

export interface SocketFake extends SocketUrlSource {
  /** `ws://127.0.0.1:<port>` */
  readonly origin: string;
  /** A fresh single-use `ws://.../link/?ticket=...` URL, as apps.connections.open returns. */
  issueUrl(): string;
  /** Resolves once a client is connected and has been sent `hello` (at once if one already is). */
  connected(timeoutMs?: number): Promise<void>;
  sendEnvelope(type: EnvelopeType, payload: Json, opts?: EnvelopeOptions): Promise<SocketAck>;
  /** Every message the clients sent, parsed. */
  readonly received: unknown[];
  /** Open connections right now. */
  connectionCount(): number;
  /** How many connections were ever accepted (reconnects increase it). */
  readonly totalConnections: number;
  /** Ask clients to reconnect, as Slack does before recycling a server. */
  sendDisconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  close(): Promise<void>;
}

export async function startSocketFake(opts: SocketFakeOptions = {}): Promise<SocketFake> {
  const appId = opts.appId ?? SLACK_IDS.appId;
  const ackTimeout = opts.ackTimeoutMs ?? 3000;
  const tickets = new Set<string>();
  const open = new Set<WebSocket>();
  const received: unknown[] = [];
  const pendingAcks = new Map<
    string,
    { resolve: (ack: SocketAck) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }
  >();
  let waiters: Array<() => void> = [];
  let total = 0;

  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    // Tickets are single use on Slack: a client must call apps.connections.open for every (re)connect.
    verifyClient: (info, done) => {
      const url = new URL(info.req.url ?? '/', 'ws://fake');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (url.pathname !== '/link/' || !tickets.delete(ticket)) return done(false, 401, 'invalid ticket');
      done(true);
    },
  });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', () => resolve());
    wss.once('error', reject);
  });
  const port = (wss.address() as AddressInfo).port;
  const origin = `ws://127.0.0.1:${port}`;

  wss.on('connection', (ws) => {
    total += 1;
    open.add(ws);
    ws.on('close', () => open.delete(ws));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        received.push(data.toString());
        return;
      }
      received.push(msg);
      const id = (msg as Json | null)?.envelope_id;
      if (typeof id === 'string') {
        const pending = pendingAcks.get(id);
        pendingAcks.delete(id);
        if (pending) {
          clearTimeout(pending.timer);
          const payload = (msg as Json).payload;
          pending.resolve(payload !== undefined ? { envelope_id: id, payload: payload as Json } : { envelope_id: id });
        }
      }
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: open.size,
        debug_info: { host: `applink-fake-${port}`, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: appId },
      }),
    );
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });

  function newest(): WebSocket | undefined {
    return [...open].filter((ws) => ws.readyState === WebSocket.OPEN).at(-1);
  }

  return {
    origin,
    received,
    get totalConnections() {
      return total;
    },

    issueUrl() {
      const ticket = randomUUID();
      tickets.add(ticket);
      return `${origin}/link/?ticket=${ticket}&app_id=${appId}`;
    },

    connected(timeoutMs = 3000) {
      if (newest()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          reject(new Error(`socket-fake: no client connected within ${timeoutMs} ms (${total} connections so far)`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push(done);
      });
    },

    sendEnvelope(type, payload, o = {}) {
      const ws = newest();
      if (!ws) return Promise.reject(new Error(`socket-fake: no open connection to send a ${type} envelope on`));
      const envelope_id = randomUUID();
      const envelope: Json = {
        envelope_id,
        payload,
        type,
        accepts_response_payload: o.accepts_response_payload ?? type !== 'events_api',
      };
      if (type === 'events_api') {
        envelope.retry_attempt = o.retry_attempt ?? 0;
        envelope.retry_reason = o.retry_reason ?? '';
      }
      const timeoutMs = o.timeoutMs ?? ackTimeout;
      return new Promise<SocketAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          pendingAcks.delete(envelope_id);
          reject(new Error(`socket-fake: no ack for ${type} envelope ${envelope_id} within ${timeoutMs} ms`));
        }, timeoutMs);
        pendingAcks.set(envelope_id, { resolve, reject, timer });
        ws.send(JSON.stringify(envelope));
      });
    },

    connectionCount: () => open.size,

    sendDisconnect(reason = 'refresh_requested') {
      for (const ws of open)
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: `applink-fake-${port}` } }));
    },

    async close() {
      for (const [id, p] of pendingAcks) {
        clearTimeout(p.timer);
        p.reject(new Error(`socket-fake: closed before envelope ${id} was acked`));
      }
      pendingAcks.clear();
      for (const ws of open) ws.terminate();
      open.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
