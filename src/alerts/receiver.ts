/**
 * POST /webhooks/wallet/:secret. The request path does only what the acknowledgement
 * promises: check, parse, and commit the event (with its outbox entries) durably. Slack
 * and the wallet service are never called here; verification and posting happen after.
 */
import type { DepositScreening } from './sanctions.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PriceSnapshot } from '../prices/types.js';
import { noteRequest } from '../request-context.js';
import type { Store, Tx } from '../store/index.js';
import type { IngestResult } from './ingest.js';
import type { WebhookEvent } from './parse.js';
import { matchingSecret, verifySignature } from './signature.js';
import type { PolicySource } from '../policy/source.js';
import { BodyTooLarge, readBody } from '../http/body.js';
import { checkWebhookBody } from './webhook-body.js';
import { createWebhookIngest, type WebhookIngest } from './webhook-ingest.js';

export { MAX_WEBHOOK_VALUES } from './webhook-body.js';

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface WebhookHandlerDeps {
  /** Deposits from sanctioned senders are flagged (sanctions.ts). */
  screening?: DepositScreening;
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'kick' | 'reprioritize'>;
  policy: PolicySource;
  /** The price cache (src/prices), for `@here` by value. */
  prices?: () => PriceSnapshot;
  logger: Logger;
  /**
   * The accepted secret path segments (each also the HMAC key of its own URL): the current one
   * and, during a rotation's overlap, the previous one. A function, so a rotation applies at once.
   */
  secret: string | (() => string | readonly string[] | undefined);
  signatureRequired?: boolean;
  maxBodyBytes?: number;
  now?: () => number;
  /**
   * Runs inside the event's commit for withdrawal events carrying a merchantReference, so the
   * link to the approval card is as durable as the event. Must be synchronous; throwing makes
   * the delivery fail (500) and the sender retry.
   */
  linkWithdrawal?: (tx: Tx, e: { alertId: string; merchantReference: string; event: WebhookEvent }) => void;
  /** After the event is durable and acknowledged (never blocks the response). */
  onAccepted?: (r: Exclude<IngestResult, { outcome: 'duplicate' }>, e: WebhookEvent) => void;
}

/** `params.secret` is the path segment; typed as the router's params so it mounts directly in src/http/server.ts. */
export type WebhookHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: { secret?: string } & Record<string, string>,
) => Promise<void>;

function reply(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(text);
}

function tooLarge(req: IncomingMessage, res: ServerResponse, max: number): void {
  reply(res, 413, { error: `body larger than ${max} bytes` }, true);
  // Stop reading: the connection is closed once the answer is out.
  res.on('finish', () => req.socket.destroy());
}

export function createWebhookHandler(deps: WebhookHandlerDeps): WebhookHandler {
  return webhookRoute(deps).handler;
}

/**
 * The route and, beside it, the same ingestion without HTTP: the leader's inbox drain
 * (src/replica/inbox.ts) hands it the bodies a standby checked and acknowledged.
 */
export function webhookRoute(deps: WebhookHandlerDeps): { handler: WebhookHandler; ingest: WebhookIngest } {
  const log = deps.logger.child({ module: 'webhook' });
  const now = deps.now ?? Date.now;
  const max = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const secret = typeof deps.secret === 'function' ? deps.secret : () => deps.secret as string;
  const ingest = createWebhookIngest(deps);

  const handler: WebhookHandler = async (req, res, params) => {
    const accepted = secret();
    const expected = accepted === undefined ? undefined : matchingSecret(params.secret ?? '', accepted);
    if (!expected) {
      // Same answer as an unknown route: the URL is the credential and reveals nothing.
      req.resume();
      reply(res, 404, { error: 'not found' });
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req, max);
    } catch (err) {
      if (err instanceof BodyTooLarge) return tooLarge(req, res, max);
      throw err;
    }

    if (deps.signatureRequired) {
      const h = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(' ') : v;
      };
      const check = verifySignature(
        expected,
        { id: h('webhook-id'), timestamp: h('webhook-timestamp'), signature: h('webhook-signature') },
        body,
        now(),
      );
      if (!check.ok) {
        log.warn({ reason: check.reason }, 'webhook refused: signature');
        reply(res, 401, { error: 'invalid signature' });
        return;
      }
    }

    const raw = body.toString('utf8');
    const checked = checkWebhookBody(raw);
    if (!checked.ok) {
      if (checked.amount) log.warn({ reason: checked.error }, 'webhook refused: amount out of bounds');
      reply(res, checked.status, { error: checked.error });
      return;
    }
    const { event } = checked;
    const [result] = await ingest([{ event, raw }]);
    reply(res, 200, { ok: true, duplicate: result!.outcome === 'duplicate' });
    log.info(
      { alertId: result!.alertId, outcome: result!.outcome, kind: event.kind, status: event.statusName },
      'webhook received',
    );
    noteRequest({ kind: event.kind, outcome: result!.outcome });
  };
  return { handler, ingest };
}
