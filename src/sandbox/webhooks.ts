/**
 * Webhook registration (`PUT /api/v1/merchant/remittancewebhook`) and delivery.
 *
 * Each status change is its own notification with its own retries, so a PENDING that
 * keeps failing can arrive after its CONFIRMED: receivers must cope with reordering,
 * exactly as with the real service. Retries: any non-2xx or network error, exponential
 * backoff (retryBaseMs, doubling, capped at maxDelayMs) with "equal jitter" (half the
 * delay fixed, half random), up to maxAttempts attempts in all. Retries of one
 * notification keep its webhook-id, so a receiver can de-duplicate.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { stringifyJson } from '../wallet/json.js';
import { v1Fail, v1Ok, type Reply } from './envelopes.js';
import { describeIssues, missingFields, plainJsonObject } from './body.js';
import { requireApiKey, type AuthDeps } from './auth.js';
import type { SandboxRequest } from './http.js';
import type { NotifyStatus } from './webhook-payloads.js';

export interface WebhookSettings {
  signingSecret?: string;
  retryBaseMs: number;
  maxAttempts: number;
  maxDelayMs: number;
  confirmAfterMs: number;
  /** Per attempt: a receiver slower than this counts as a network error. */
  timeoutMs: number;
}

export interface Delivery {
  url: string;
  body: string;
  headers: Record<string, string>;
  status: number | 'error';
  attempt: number;
  at: number;
  kind: WebhookKind;
  transactionStatus: NotifyStatus;
  error?: string;
}

export type WebhookKind = 'deposit' | 'withdrawal' | 'remittance';

interface DispatcherDeps {
  now: () => number;
  log: Logger;
  urlFor(merchantEmail: string): string | undefined;
}

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a `whsec_` secret is
 * base64 after the prefix, any other secret is used as its UTF-8 bytes.
 */
export function signatureKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', signatureKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export class WebhookDispatcher {
  readonly deliveries: Delivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<ClientRequest>();
  private closed = false;

  constructor(
    readonly settings: WebhookSettings,
    private readonly deps: DispatcherDeps,
  ) {}

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  /**
   * PENDING now, the final status after confirmAfterMs. `onSettled` runs at that moment
   * (a deposit is credited when it confirms), before the final notification goes out.
   */
  lifecycle(
    merchantEmail: string,
    kind: WebhookKind,
    payloadFor: (status: NotifyStatus) => unknown,
    final: 'CONFIRMED' | 'FAILED',
    onSettled?: () => void,
  ): void {
    this.notify(merchantEmail, kind, 'PENDING', payloadFor('PENDING'));
    this.later(this.settings.confirmAfterMs, () => {
      onSettled?.();
      this.notify(merchantEmail, kind, final, payloadFor(final));
    });
  }

  notify(merchantEmail: string, kind: WebhookKind, status: NotifyStatus, payload: unknown): void {
    const url = this.deps.urlFor(merchantEmail);
    if (!url || this.closed) return;
    const body = stringifyJson(payload);
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    this.attempt({ url, body, id, kind, status }, 1);
  }

  private attempt(
    n: { url: string; body: string; id: string; kind: WebhookKind; status: NotifyStatus },
    attempt: number,
  ): void {
    if (this.closed) return;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'wallet-sandbox-webhooks/1',
    };
    if (this.settings.signingSecret) {
      const ts = Math.floor(this.deps.now() / 1000);
      headers['webhook-id'] = n.id;
      headers['webhook-timestamp'] = String(ts);
      headers['webhook-signature'] = signWebhook(this.settings.signingSecret, n.id, ts, n.body);
    }
    const record = (status: number | 'error', error?: string) => {
      const d: Delivery = {
        url: n.url,
        body: n.body,
        headers,
        status,
        attempt,
        at: this.deps.now(),
        kind: n.kind,
        transactionStatus: n.status,
      };
      if (error) d.error = error;
      this.deliveries.push(d);
      const ok = typeof status === 'number' && status >= 200 && status < 300;
      this.deps.log.debug({ kind: n.kind, status: n.status, attempt, result: status }, 'webhook delivery');
      if (ok || this.closed) return;
      if (attempt >= this.settings.maxAttempts) {
        this.deps.log.warn({ kind: n.kind, status: n.status, attempts: attempt }, 'webhook delivery abandoned');
        return;
      }
      const full = Math.min(this.settings.retryBaseMs * 2 ** (attempt - 1), this.settings.maxDelayMs);
      const delay = full / 2 + (randomBytes(4).readUInt32BE() / 0x1_0000_0000) * (full / 2);
      this.later(delay, () => this.attempt(n, attempt + 1));
    };

    let target: URL;
    try {
      target = new URL(n.url);
    } catch {
      record('error', 'invalid URL');
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const settle = (status: number | 'error', error?: string) => {
      if (settled) return;
      settled = true;
      this.inflight.delete(req);
      // An attempt cut short by close() is not an attempt the receiver could answer.
      if (!this.closed) record(status, error);
    };
    const req = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(n.body)) },
      agent: false,
      timeout: this.settings.timeoutMs,
    });
    this.inflight.add(req);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => settle(res.statusCode ?? 0));
      res.on('error', () => settle(res.statusCode ?? 'error'));
    });
    req.on('timeout', () => req.destroy(new Error('receiver timed out')));
    req.on('error', (err) => settle('error', err.message));
    req.end(n.body);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.inflight) r.destroy();
    this.inflight.clear();
  }
}

const registration = z.object({
  webHookUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  publicKey: z.string().min(1),
});

export function registerWebhook(deps: AuthDeps, req: SandboxRequest): Reply {
  const auth = requireApiKey(deps, req);
  if (!auth.ok) return auth.reply;
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v1Fail('Invalid request', parsed.message);
  const missing = missingFields(parsed.value, ['webHookUrl', 'publicKey']);
  if (missing.length) return v1Fail('Invalid request', `Missing required field(s): ${missing.join(', ')}`);
  const body = registration.safeParse(parsed.value);
  if (!body.success) return v1Fail('Invalid request', describeIssues(body.error));
  if (body.data.publicKey !== auth.merchant.publicKey)
    return v1Fail('Invalid public key', 'publicKey does not belong to this merchant');
  auth.merchant.webhookUrl = body.data.webHookUrl;
  return v1Ok({ webHookUrl: body.data.webHookUrl, publicKey: body.data.publicKey }, 'Webhook URL updated successfully');
}
