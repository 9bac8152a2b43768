/**
 * What a standby replica serves while it waits for the lead: `/healthz` 200, `/readyz` 503
 * `{"role":"standby"}` (the load balancer sends Slack only to the ready replica), and the wallet
 * service's webhooks, taken into the inbox (inbox.ts) when their secret is one the app accepts,
 * and its verification callback, answered from the database (standby-verify.ts).
 * Everything else answers 503: Slack's requests belong to the leader. No Socket Mode, no jobs,
 * no outbox, no policy watcher run here: none of them is even built until this replica leads.
 */
import type { IncomingMessage } from 'node:http';
import pg from 'pg';
import { secretMatches, verifySignature } from '../alerts/signature.js';
import { type HttpServer, sendJson, startHttpServer } from '../http/server.js';
import type { Logger } from '../log.js';
import { clientConfig } from '../store/pg/connection.js';
import { DEFAULT_MAX_BODY_BYTES } from '../alerts/receiver.js';
import { checkWebhookBody, drainPriority } from '../alerts/webhook-body.js';
import { storedWebhookSecrets } from '../webhooks/stored.js';
import type { SecretKeys } from '../webhooks/sealed.js';
import { putInbox } from './inbox.js';
import { hashInboxSecret, inboxHashKey, standbySecretsKey } from './inbox-secret.js';
import { standbyVerification } from './standby-verify.js';

/** What a standby tells a Slack request to wait: about the time a failover takes. */
export const STANDBY_RETRY_AFTER_S = 2;

export interface StandbyOptions {
  url: string;
  port: number;
  host: string;
  logger: Logger;
  version: string;
  /** WEBHOOK_SECRET (and the previous one in its overlap), when configured; else the database's. */
  configuredSecrets: string[];
  signatureRequired?: boolean;
  /** SECRETS_KEY (and the previous one), when configured: it opens the generated secrets the leader stores sealed. */
  secretsKeys?: SecretKeys;
  /** The merchant's secret key (WALLET_API_KEY, or the embedded sandbox's): the verification checksum's key. */
  secretKey: string;
}

async function readLimited(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) return undefined;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function startStandby(o: StandbyOptions): Promise<HttpServer> {
  const db = new pg.Pool({ ...clientConfig(o.url, { application: 'treasury-slack standby' }), max: 4 });
  db.on('error', (err) => o.logger.warn({ err }, 'standby: database connection error'));
  const log = o.logger.child({ component: 'standby' });
  // Found once: SECRETS_KEY does not change under a running replica.
  let hashKey: Buffer | undefined;
  const inboxKey = async () => {
    if (hashKey) return hashKey;
    const key = await standbySecretsKey(db, o.secretsKeys);
    if (key) hashKey = inboxHashKey(key);
    return hashKey;
  };
  const http = await startHttpServer(
    [
      // Alive and answering (a process supervisor or liveness check must not restart it),
      // whether or not the database is reachable right now: it keeps trying (store/pg/leader.ts).
      {
        method: 'GET',
        path: '/healthz',
        handler: (_q, res) => sendJson(res, 200, { ok: true, version: o.version, role: 'standby' }),
      },
      { method: 'GET', path: '/readyz', handler: (_q, res) => sendJson(res, 503, { role: 'standby' }) },
      // Slack's requests belong to the leader: a load balancer that sent one here anyway (it
      // has not seen /readyz move yet) gets a 503 Slack retries, not a 404 it gives up on.
      {
        method: 'POST',
        path: '/slack/events',
        handler: (req, res) => {
          req.resume();
          res.setHeader('retry-after', String(STANDBY_RETRY_AFTER_S));
          sendJson(res, 503, { error: 'this replica is standing by; retry', role: 'standby' });
        },
      },
      {
        method: 'GET',
        path: '/webhooks/wallet/:secret/verify',
        handler: standbyVerification({
          db,
          secrets: async () =>
            o.configuredSecrets.length > 0 ? o.configuredSecrets : storedWebhookSecrets(db, o.secretsKeys),
          secretKey: o.secretKey,
          logger: log,
        }),
      },
      {
        method: 'POST',
        path: '/webhooks/wallet/:secret',
        handler: async (req, res, params) => {
          const given = params.secret ?? '';
          let accepted = o.configuredSecrets;
          try {
            if (accepted.length === 0) accepted = await storedWebhookSecrets(db, o.secretsKeys);
          } catch (err) {
            log.warn({ err }, 'standby: could not read the webhook secret');
            req.resume();
            return sendJson(res, 503, { error: 'unavailable, retry' });
          }
          if (!secretMatches(given, accepted)) {
            req.resume();
            return sendJson(res, 404, { error: 'not found' });
          }
          const body = await readLimited(req, DEFAULT_MAX_BODY_BYTES);
          if (!body) {
            sendJson(res, 413, { error: `body larger than ${DEFAULT_MAX_BODY_BYTES} bytes` });
            return void req.socket.destroy();
          }
          const h = (n: string) => {
            const v = req.headers[n];
            return Array.isArray(v) ? v.join(' ') : v;
          };
          if (o.signatureRequired) {
            const check = verifySignature(
              given,
              { id: h('webhook-id'), timestamp: h('webhook-timestamp'), signature: h('webhook-signature') },
              body,
              Date.now(),
            );
            if (!check.ok) return sendJson(res, 401, { error: 'invalid signature' });
          }
          // The leader's own checks and words (src/alerts/webhook-body.ts): never acknowledge a body it would refuse.
          const raw = body.toString('utf8');
          const checked = checkWebhookBody(raw);
          if (!checked.ok) return sendJson(res, checked.status, { error: checked.error });
          const headers: Record<string, string> = {};
          for (const n of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
            const v = h(n);
            if (v !== undefined) headers[n] = v;
          }
          try {
            const key = await inboxKey();
            // Before the leader's first start made SECRETS_KEY (local mode): nothing to hash with yet.
            if (!key) throw new Error('no SECRETS_KEY in the database yet');
            const item = { secretHash: hashInboxSecret(key, given), body: raw, headers };
            const fresh = await putInbox(db, item, drainPriority(checked.event));
            sendJson(res, 200, { ok: true, duplicate: !fresh });
            log.info({ duplicate: !fresh }, 'standby: webhook taken into the inbox for the leader');
          } catch (err) {
            log.warn({ err }, 'standby: could not store a webhook; the service will retry');
            sendJson(res, 503, { error: 'unavailable, retry' });
          }
        },
      },
    ],
    { port: o.port, host: o.host, logger: log },
  );
  log.info({ port: http.port }, 'standing by: another replica leads, or the database is not reachable yet');
  return {
    ...http,
    close: async () => {
      await http.close();
      await db.end().catch(() => {});
    },
  };
}
