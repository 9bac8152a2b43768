/**
 * What /readyz reports: can the store write, is the wallet service logged in (a login is
 * tried, at most every 30 s), is Slack connected. Each check says which part is down in the
 * app's own words; an upstream's error text (the wallet service's or Slack's message, which may
 * say more than an unauthenticated probe should read) never goes out here: it is in the log and
 * in the admins' `/treasury status`.
 */
import type { Deps } from '../deps.js';
import type { SlackApp } from '../slack/app.js';

export interface Check {
  ok: boolean;
  detail: string;
}

/** A failed login is not retried by readiness probes more often than this (no lockouts, no hammering). */
const LOGIN_PROBE_INTERVAL_MS = 30_000;

/** The wallet check when the app is not logged in: fixed words, never the service's message. */
export const WALLET_DOWN = 'not logged in to the wallet service (the cause is in the log and in /treasury status)';

export function readinessProbe(deps: Deps, slack: SlackApp | undefined): () => Promise<Record<string, Check>> {
  let lastAttempt = 0;
  return async () => {
    const s = deps.store.stats();
    const h = deps.store.health();
    const store: Check = h.writable
      ? { ok: true, detail: `${s.records} records` }
      : {
          ok: false,
          detail: `cannot write since ${new Date(h.since).toISOString()}: ${h.error.code ?? h.error.reason} (${h.error.reason.replace('_', ' ')}); reads work, writes are refused until it has room`,
        };
    let wallet: Check;
    if (!deps.wallet.authState().loggedIn && deps.now() - lastAttempt >= LOGIN_PROBE_INTERVAL_MS) {
      lastAttempt = deps.now();
      try {
        await deps.wallet.login();
      } catch (err) {
        deps.logger.warn({ err }, 'readiness: the wallet service login failed');
      }
    }
    const a = deps.wallet.authState();
    if (a.loggedIn) wallet = { ok: true, detail: `logged in until ${new Date(a.expiresAt ?? 0).toISOString()}` };
    else wallet = { ok: false, detail: WALLET_DOWN };
    const slackCheck: Check = !slack
      ? { ok: true, detail: 'local mode (no Slack credentials)' }
      : deps.config.slack.mode === 'local'
        ? { ok: true, detail: 'local mode: the local workspace' }
        : { ok: slack.connected(), detail: `${slack.mode} mode${slack.connected() ? '' : ', not connected'}` };
    return { store, wallet, slack: slackCheck };
  };
}
