/**
 * Slack's HTTP requests, read once. Bolt's stock HTTPReceiver reads the form body for an
 * `ssl_check`, verifies the signature, then parses the body again; our envelope check in front
 * of it (payloads.ts: a signed `payload=null` crashed Bolt) had to buffer, verify and parse it a
 * third and fourth time. Under a burst of a hundred approval clicks that doubled work, and the
 * garbage it made, was most of what kept our acks behind a bare Bolt app's (bench/withdrawals,
 * "click ack"). This receiver does each step once, in the order that refuses cheapest first:
 *
 *   body over 1 MB        413   (Slack's own limit is far below it)
 *   signature or age bad  401   (more than 5 minutes old or ahead; an unsigned `ssl_check=1` is answered 200, as Bolt does, and nothing else is read)
 *   not JSON nor a form   400
 *   not a Slack envelope  400 with the reason (a person could not have sent it)
 *   ssl_check, url_verification: answered here
 *   anything else         Bolt's processEvent, with Bolt's own HTTPResponseAck (3 s unhandled timeout)
 *
 * It is a Bolt `Receiver` (init/start/stop); our HTTP server owns the port and mounts
 * `requestListener` at POST /slack/events. Each request counts as unanswered in the ack queue
 * from its arrival until its response is written or abandoned (acks-first.ts).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import {
  type App,
  HTTPModuleFunctions as http,
  HTTPResponseAck,
  type Logger as BoltLogger,
  type Receiver,
  type ReceiverEvent,
  verifySlackRequest,
} from '@slack/bolt';
import type { Logger } from '../log.js';
import type { AckQueue } from './acks-first.js';
import { checkEnvelope } from './payloads.js';

/** Slack's own limit on a request body is far below this; larger is not Slack. */
export const BODY_LIMIT = 1024 * 1024;

const FORM = 'application/x-www-form-urlencoded';

export interface SlackHttpReceiverOptions {
  signingSecret: string;
  logger: Logger;
  /** Bolt's logger interface on the same logger (HTTPResponseAck writes to it). */
  boltLogger: BoltLogger;
  acks?: AckQueue;
  /** The clock the request timestamp is checked against, both ways (ours for the future, Bolt's for staleness). */
  now?: () => number;
}

/** Slack's replay window: a request timestamp further than this from now, either way, is refused. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  readonly requestListener: RequestListener;

  constructor(private readonly o: SlackHttpReceiverOptions) {
    this.requestListener = (req, res) => {
      if (o.acks) {
        const answered = o.acks.arrived();
        res.once('finish', answered);
        res.once('close', answered);
      }
      this.handle(req, res).catch((err: unknown) => {
        o.logger.error({ err }, 'Slack request failed');
        if (!res.headersSent) http.buildNoBodyResponse(res, 400);
      });
    };
  }

  init(app: App): void {
    this.app = app;
  }

  /** Our HTTP server listens; nothing to start here. */
  async start(): Promise<void> {}

  /**
   * Stopping: from now on no new Slack request starts work (a click could otherwise claim a
   * send while the app waits for the sends in flight, then lose its answer as the store
   * closes); new ones are told the app is restarting. Resolves once the requests already
   * dispatched have finished their work (a click acknowledged a moment ago may not have
   * claimed its send yet), or after `STOP_WAIT_MS`: the app then waits for its sends in flight.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.inflight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      Promise.allSettled([...this.inflight]).then(() => true),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!waited) this.o.logger.warn({ requests: this.inflight.size }, 'stopping with Slack requests still at work');
  }

  private stopping = false;
  private readonly inflight = new Set<Promise<void>>();

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let buffered: Awaited<ReturnType<typeof http.bufferIncomingMessage>>;
    try {
      buffered = await http.bufferIncomingMessage(req, BODY_LIMIT);
    } catch (err) {
      const tooLarge = http.isRawBodyError(err) && (err.statusCode === 413 || err.type === 'entity.too.large');
      if (tooLarge) this.o.logger.warn('refused a Slack request over the body limit');
      http.buildNoBodyResponse(res, tooLarge ? 413 : 400);
      return;
    }
    const text = buffered.rawBody.toString();
    const form = req.headers['content-type'] === FORM;
    if (!this.verified(req, text)) {
      // Slack's ssl_check carries no signature; it is answered and nothing of it is read further.
      if (form && parseQuery(text).ssl_check === '1') return http.buildSSLCheckResponse(res);
      this.o.logger.warn('refused a Slack request with a bad or stale signature');
      http.buildNoBodyResponse(res, 401);
      return;
    }
    let body: unknown;
    try {
      body = http.parseHTTPRequestBody(buffered);
    } catch {
      return this.refuse(res, 'the body is not JSON or a form');
    }
    const check = checkEnvelope(body);
    if (!check.ok) return this.refuse(res, check.reason);
    if (check.kind === 'ssl_check') return http.buildSSLCheckResponse(res);
    const envelope = body as ReceiverEvent['body'];
    if (check.kind === 'url_verification') return http.buildUrlVerificationResponse(res, envelope);
    if (this.stopping) return restarting(res, check.kind);
    const work = this.dispatch(buffered, res, envelope);
    this.inflight.add(work);
    try {
      await work;
    } finally {
      this.inflight.delete(work);
    }
  }

  private verified(req: IncomingMessage, text: string): boolean {
    // Bolt refuses a timestamp more than 5 minutes old but not one ahead: a signature made for
    // the future (a captured or precomputed request) would be replayable until then.
    // One reading of one clock for both checks, so the window is the same either way.
    const ts = Number(req.headers['x-slack-request-timestamp']);
    const nowMilliseconds = (this.o.now ?? Date.now)();
    const nowSeconds = Math.floor(nowMilliseconds / 1000);
    if (!Number.isFinite(ts) || Math.abs(nowSeconds - ts) > SIGNATURE_WINDOW_SECONDS) return false;
    try {
      verifySlackRequest({
        signingSecret: this.o.signingSecret,
        body: text,
        headers: {
          'x-slack-signature': String(req.headers['x-slack-signature'] ?? ''),
          'x-slack-request-timestamp': ts,
        },
        nowMilliseconds,
      });
      return true;
    } catch {
      return false;
    }
  }

  /** A signed request that is not a Slack envelope: 400 and a log line (never the payload: it may hold anything). */
  private refuse(res: ServerResponse, reason: string): void {
    this.o.logger.warn({ reason }, 'refused a signed Slack request that is not a Slack envelope');
    const text = JSON.stringify({ error: 'not a Slack request payload', reason });
    res.writeHead(400, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  private async dispatch(
    req: Awaited<ReturnType<typeof http.bufferIncomingMessage>>,
    res: ServerResponse,
    body: ReceiverEvent['body'],
  ): Promise<void> {
    const app = this.app;
    if (!app) throw new Error('the Slack receiver has no app yet');
    const ack = new HTTPResponseAck({
      logger: this.o.boltLogger,
      // Acknowledge as soon as a listener calls ack(); slow work continues afterwards.
      processBeforeResponse: false,
      // guardEvents() acknowledges what no listener did; this is the last line: never a 404 after 3 s.
      unhandledRequestHandler: ({ response }) => {
        this.o.logger.warn('a Slack request was not acknowledged in time');
        if (!response.headersSent) http.buildNoBodyResponse(response, 200);
      },
      httpRequest: req,
      httpRequestBody: body,
      httpResponse: res,
    });
    try {
      await app.processEvent({
        body,
        ack: ack.bind(),
        retryNum: http.extractRetryNumFromHTTPRequest(req),
        retryReason: http.extractRetryReasonFromHTTPRequest(req),
      });
    } catch (err) {
      // guardEvents() keeps listener errors from reaching here: never a 5xx, Slack would only retry it.
      this.o.logger.error({ err }, 'Slack event failed');
      ack.ack();
      if (!res.headersSent) http.buildNoBodyResponse(res, 200);
    }
  }
}

export const RESTARTING = 'The app is restarting. Nothing was done: try again in a minute.';

/** How long a stop waits for the work of Slack requests already taken (a wallet call's timeout fits in it). */
export const STOP_WAIT_MS = 30_000;

/**
 * What a request gets while the app stops: a slash command's answer is shown to the person
 * (so they hear why); anything else gets a 503, which Slack shows as a failed click and, for
 * events, redelivers later to the app that takes over.
 */
function restarting(res: ServerResponse, kind: string): void {
  if (kind !== 'slash_command') {
    res.writeHead(503, { 'retry-after': '60' });
    res.end();
    return;
  }
  http.buildContentResponse(res, { response_type: 'ephemeral', text: `:hourglass: ${RESTARTING}` });
}
