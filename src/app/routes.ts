/**
 * The app's HTTP routes: the wallet service's webhooks (secret path), health, readiness,
 * Slack's events (HTTP mode) and, in local mode, the local workspace's page and Web API.
 */
import type { Alerts } from '../alerts/index.js';
import { sendJson, type Handler, type Route } from '../http/server.js';
import type { LocalWorkspace } from '../local/workspace.js';
import type { SlackApp } from '../slack/app.js';
import { label, type Metrics, VERIFICATION_ANSWERS, WEBHOOK_KINDS, WEBHOOK_OUTCOMES } from '../metrics/registry.js';
import { currentRequest, inRequest, type RequestKind } from '../request-context.js';

const currentNotes = () => currentRequest()?.notes ?? {};
import type { Check } from './readiness.js';

/** Runs a handler as a request of its own; `answered` gets its notes and status once the answer is out. */
function traced(kind: RequestKind, answered?: (notes: Record<string, string>, status: number) => void) {
  return (h: Handler): Handler =>
    (req, res, params) =>
      inRequest(kind, () => {
        if (answered) {
          const notes = currentNotes();
          res.once('finish', () => answered(notes, res.statusCode));
        }
        return h(req, res, params);
      });
}

/** A refusal's outcome, when the receiver noted none (it notes only what it accepted). */
function statusOutcome(status: number): string {
  if (status === 401 || status === 404) return 'unauthorized';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'error';
  return 'invalid';
}

export function appRoutes(o: {
  alerts: Pick<Alerts, 'handler'>;
  readiness: () => Promise<Record<string, Check>>;
  version: string;
  slack: SlackApp | undefined;
  local: LocalWorkspace | undefined;
  /** The wallet service's withdrawal verification callback (src/verification/). */
  verification?: Handler;
  metrics?: Metrics;
  /** The passkey pages (src/passkeys/web/routes.ts). */
  passkeys?: Route[];
}): Route[] {
  const m = o.metrics;
  // Each webhook, verification call and Slack request runs as a request of its own (an id in its
  // log lines and outbox entries); what it noted, or else its status, is counted when it is answered.
  const webhook = traced('webhook', (n, status) =>
    m?.webhooksReceived.inc({
      kind: n.kind === undefined ? 'unknown' : label(n.kind, WEBHOOK_KINDS),
      outcome: label(n.outcome ?? statusOutcome(status), WEBHOOK_OUTCOMES),
    }),
  );
  const verify = traced('verification', (n, status) =>
    m?.verificationCallbacks.inc({
      answer: label(n.answer ?? (status >= 500 ? 'error' : 'refused'), VERIFICATION_ANSWERS),
    }),
  );
  const slackRequest = traced('slack');
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/webhooks/wallet/:secret',
      handler: webhook((req, res, params) => o.alerts.handler(req, res, { secret: params.secret ?? '' })),
    },
    ...(o.verification
      ? [{ method: 'GET', path: '/webhooks/wallet/:secret/verify', handler: verify(o.verification) }]
      : []),
    // The role beside it, as a standby's /healthz says `standby`: this process serves the app, so it leads.
    {
      method: 'GET',
      path: '/healthz',
      handler: (_req, res) => sendJson(res, 200, { ok: true, version: o.version, role: 'leader' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      handler: async (_req, res) => {
        const checks = await o.readiness();
        sendJson(res, Object.values(checks).every((c) => c.ok) ? 200 : 503, checks);
      },
    },
  ];
  const listener = o.slack?.requestListener;
  if (listener)
    routes.push({ method: 'POST', path: '/slack/events', handler: slackRequest((req, res) => listener(req, res)) });
  if (o.passkeys) routes.push(...o.passkeys);
  if (o.local) routes.push(...o.local.routes);
  return routes;
}
