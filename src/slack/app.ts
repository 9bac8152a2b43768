/**
 * Builds the Bolt app from configuration: HTTP mode (our server forwards /slack/events to
 * Bolt's receiver) or Socket Mode (Bolt holds a WebSocket to Slack). The Web API client
 * gets a hard timeout and a short retry budget: a command must never hang for minutes
 * behind a hidden retry loop, and posts that must not be lost go through the outbox.
 */
import type { RequestListener } from 'node:http';
import { App, SocketModeReceiver, type ReceiverEvent } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from '../log.js';
import { ackQueue, type AckQueue } from './acks-first.js';
import { boltLogger } from './bolt-logger.js';
import { SlackHttpReceiver } from './http-receiver.js';
import { checkEnvelope } from './payloads.js';
import { limitedFetch } from './limits.js';

export type BoltApp = App;

export interface SlackAppOptions {
  mode: 'http' | 'socket';
  botToken: string;
  signingSecret: string;
  appToken?: string;
  apiUrl?: string;
  logger: Logger;
  /** Web API call timeout; default 10 s. */
  timeoutMs?: number;
  /**
   * Wraps the fetch of Bolt's client, which respond() (response_url posts) also uses: with
   * PostgreSQL, the lease check, so a replica that lost its lead answers nothing.
   */
  wrapFetch?: (inner: typeof globalThis.fetch) => typeof globalThis.fetch;
  /** The ack queue the app shares with the outbox (src/app/work-order.ts); default: one of its own. */
  acks?: AckQueue;
}

export interface SlackApp {
  app: BoltApp;
  mode: 'http' | 'socket';
  /** HTTP mode: the handler our server mounts at POST /slack/events. */
  requestListener?: RequestListener;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** HTTP mode: always true once built; Socket Mode: whether the WebSocket is up. */
  connected(): boolean;
}

export function webClientOptions(apiUrl: string | undefined, timeoutMs = 10_000): WebClientOptions {
  return {
    ...(apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
    timeout: timeoutMs,
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 1_000, randomize: true },
    // A 429 comes back to the caller (the outbox honours Retry-After) instead of sleeping inside the client.
    rejectRateLimitedCalls: true,
    // Every request to Slack (Web API calls and response_url posts) passes Slack's size limits here.
    fetch: limitedFetch(),
  };
}

/**
 * `convoStore: false` on both apps below: nothing here uses Bolt's conversation state, and its
 * default in-memory store rejects every lookup with a new Error (a stack trace captured per
 * event), work each ack paid for nothing.
 */
export function createSlackApp(o: SlackAppOptions): SlackApp {
  const logger = boltLogger(o.logger);
  // Listeners resume after their ack once the burst they came in is acknowledged (acks-first.ts).
  const acks = o.acks ?? ackQueue();
  const base = webClientOptions(o.apiUrl, o.timeoutMs);
  // Slack's size limits stay inside: the lease is asked first, then the body is checked and sent.
  const clientOptions = o.wrapFetch ? { ...base, fetch: o.wrapFetch(limitedFetch()) } : base;
  if (o.mode === 'socket') {
    if (!o.appToken) throw new Error('Socket Mode needs an app token');
    let up = false;
    const receiver = new SocketModeReceiver({
      appToken: o.appToken,
      logger,
      // A copy: the Socket Mode client writes its own retry policy (100 retries) into the object it is given.
      installerOptions: { clientOptions: { ...clientOptions } },
    });
    guardSocket(receiver.client, o.logger);
    receiver.client.on('connected', () => (up = true));
    receiver.client.on('disconnected', () => (up = false));
    const app = new App({ token: o.botToken, receiver, logger, clientOptions, convoStore: false });
    guardEvents(app, o.logger, acks);
    return {
      app,
      mode: 'socket',
      start: async () => {
        await app.start();
      },
      stop: async () => {
        await app.stop();
        up = false;
      },
      connected: () => up,
    };
  }
  const receiver = new SlackHttpReceiver({
    signingSecret: o.signingSecret,
    logger: o.logger,
    boltLogger: logger,
    acks,
  });
  const app = new App({ token: o.botToken, receiver, logger, clientOptions, convoStore: false });
  guardEvents(app, o.logger, acks);
  return {
    app,
    mode: 'http',
    requestListener: receiver.requestListener,
    start: async () => undefined,
    // Stopped before the app waits for its sends in flight: no new click may start one.
    stop: () => receiver.stop(),
    connected: () => true,
  };
}

/**
 * Wraps app.processEvent (the one door of both receivers, HTTP and Socket Mode): an envelope
 * of the wrong shape is acknowledged and dropped, a listener's exception is logged and the
 * event acknowledged (a 200, never a 5xx: Slack would retry it, and nobody can act on a
 * 500), and an event no listener acknowledged (an unknown action id) is acknowledged at
 * once instead of after Bolt's 3 s timeout. With `acks`, a listener's `await ack()` returns
 * once the acknowledgement is sent and no other request waits for its own (acks-first.ts).
 */
export function guardEvents(app: App, logger: Logger, acks?: AckQueue): void {
  const original = app.processEvent.bind(app);
  app.processEvent = async (event: ReceiverEvent) => {
    let acked = false;
    const ack = event.ack;
    const once = async (response?: Parameters<ReceiverEvent['ack']>[0]) => {
      if (acked) return;
      acked = true;
      await ack(response);
      if (acks) await acks.afterAcks();
    };
    const check = checkEnvelope(event.body);
    if (!check.ok) {
      logger.warn({ reason: check.reason }, 'dropped a Slack event that is not a Slack envelope');
      await once().catch(() => {});
      return;
    }
    try {
      await original({ ...event, ack: once });
    } catch (err) {
      logger.error({ err, kind: check.kind }, 'Slack listener failed');
    }
    if (!acked) await once().catch((err: unknown) => logger.warn({ err }, 'could not acknowledge a Slack event'));
  };
  // Errors Bolt routes to the global handler are logged here, not rethrown (that would make a 500).
  app.error(async (err) => {
    logger.error({ err }, 'Slack listener failed');
  });
}

const SOCKET_PAYLOAD_TYPES = new Set(['events_api', 'slash_commands', 'interactive']);

/** What a Socket Mode message needs before the socket client reads it; undefined when it may go on. */
export function socketMessageProblem(text: string): { reason: string; envelopeId?: string } | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined; // the client ignores what is not JSON
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return { reason: 'the message is not an object' };
  const m = msg as Record<string, unknown>;
  const envelopeId = typeof m.envelope_id === 'string' ? m.envelope_id : undefined;
  if (typeof m.type !== 'string') return { reason: 'no type', envelopeId };
  if (!SOCKET_PAYLOAD_TYPES.has(m.type)) return undefined; // hello, disconnect, and types the client handles itself
  const check = checkEnvelope(m.payload);
  return check.ok ? undefined : { reason: `${m.type}: ${check.reason}`, envelopeId };
}

/**
 * The Socket Mode client reads `payload.event.type` of every events_api message before any
 * of our code runs (an envelope without `event` rejected unhandled inside it). Its message
 * listener is wrapped: a malformed envelope is acknowledged (so Slack does not redeliver
 * it) and dropped; the listener's own failures are logged, never left unhandled.
 */
function guardSocket(client: SocketModeReceiver['client'], logger: Logger): void {
  const originals = client.listeners('ws_message') as Array<(data: unknown, isBinary: boolean) => unknown>;
  client.removeAllListeners('ws_message');
  const send = (client as unknown as { send(id: string, body?: unknown): Promise<void> }).send.bind(client);
  client.on('ws_message', (data: unknown, isBinary: boolean) => {
    if (!isBinary) {
      const text =
        typeof data === 'string'
          ? data
          : Buffer.isBuffer(data)
            ? data.toString('utf8')
            : new TextDecoder().decode(data as ArrayBuffer);
      const problem = socketMessageProblem(text);
      if (problem) {
        logger.warn({ reason: problem.reason }, 'dropped a Socket Mode message that is not a Slack envelope');
        if (problem.envelopeId)
          send(problem.envelopeId).catch((err: unknown) =>
            logger.warn({ err }, 'could not acknowledge a dropped Socket Mode message'),
          );
        return;
      }
    }
    for (const listener of originals) {
      Promise.resolve()
        .then(() => listener(data, isBinary))
        .catch((err: unknown) => logger.error({ err }, 'Socket Mode message handling failed'));
    }
  });
}
