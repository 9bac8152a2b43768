/**
 * The app's HTTP routes: the wallet service's webhooks (secret path), health, readiness,
 * Slack's events (HTTP mode) and, in local mode, the local workspace's page and Web API.
 */
import type { Alerts } from '../alerts/index.js';
import { sendJson, type Handler, type Route } from '../http/server.js';
import type { LocalWorkspace } from '../local/workspace.js';
import type { SlackApp } from '../slack/app.js';
import type { Check } from './readiness.js';

export function appRoutes(o: {
  alerts: Pick<Alerts, 'handler'>;
  readiness: () => Promise<Record<string, Check>>;
  version: string;
  slack: SlackApp | undefined;
  local: LocalWorkspace | undefined;
  /** The wallet service's withdrawal verification callback (src/verification/). */
  verification?: Handler;
}): Route[] {
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/webhooks/wallet/:secret',
      handler: (req, res, params) => o.alerts.handler(req, res, { secret: params.secret ?? '' }),
    },
    ...(o.verification ? [{ method: 'GET', path: '/webhooks/wallet/:secret/verify', handler: o.verification }] : []),
    { method: 'GET', path: '/healthz', handler: (_req, res) => sendJson(res, 200, { ok: true, version: o.version }) },
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
  if (listener) routes.push({ method: 'POST', path: '/slack/events', handler: (req, res) => listener(req, res) });
  if (o.local) routes.push(...o.local.routes);
  return routes;
}
