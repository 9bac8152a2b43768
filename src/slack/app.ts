/**
 * Builds the Bolt app from configuration: HTTP mode (our server forwards /slack/events to
 * Bolt's receiver) or Socket Mode (Bolt holds a WebSocket to Slack). The Web API client
 * gets a hard timeout and a short retry budget: a command must never hang for minutes
 * behind a hidden retry loop, and posts that must not be lost go through the outbox.
 */
import type { RequestListener } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from '../log.js';
import { boltLogger } from './bolt-logger.js';

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
  };
}

export function createSlackApp(o: SlackAppOptions): SlackApp {
  const logger = boltLogger(o.logger);
  const clientOptions = webClientOptions(o.apiUrl, o.timeoutMs);
  if (o.mode === 'socket') {
    if (!o.appToken) throw new Error('Socket Mode needs an app token');
    let up = false;
    const receiver = new SocketModeReceiver({
      appToken: o.appToken,
      logger,
      // A copy: the Socket Mode client writes its own retry policy (100 retries) into the object it is given.
      installerOptions: { clientOptions: { ...clientOptions } },
    });
    receiver.client.on('connected', () => (up = true));
    receiver.client.on('disconnected', () => (up = false));
    const app = new App({ token: o.botToken, receiver, logger, clientOptions });
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
  const receiver = new HTTPReceiver({
    signingSecret: o.signingSecret,
    endpoints: '/slack/events',
    logger,
    // Acknowledge as soon as a listener calls ack(); slow work continues afterwards.
    processBeforeResponse: false,
  });
  const app = new App({ token: o.botToken, receiver, logger, clientOptions });
  return {
    app,
    mode: 'http',
    requestListener: receiver.requestListener,
    start: async () => undefined,
    stop: async () => undefined,
    connected: () => true,
  };
}
