/**
 * What /readyz reports: can the store write, is the wallet service logged in (a login is
 * tried, at most every 30 s), is Slack connected. Each check says what is wrong.
 */
import type { Deps } from '../deps.js';
import type { SlackApp } from '../slack/app.js';

export interface Check {
  ok: boolean;
  detail: string;
}

/** A failed login is not retried by readiness probes more often than this (no lockouts, no hammering). */
const LOGIN_PROBE_INTERVAL_MS = 30_000;

export function readinessProbe(deps: Deps, slack: SlackApp | undefined): () => Promise<Record<string, Check>> {
  let lastAttempt = 0;
  let lastError: string | undefined;
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
        lastError = undefined;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    const a = deps.wallet.authState();
    if (a.loggedIn) wallet = { ok: true, detail: `logged in until ${new Date(a.expiresAt ?? 0).toISOString()}` };
    else wallet = { ok: false, detail: lastError ?? 'not logged in' };
    const slackCheck: Check = !slack
      ? { ok: true, detail: 'local mode (no Slack credentials)' }
      : deps.config.slack.mode === 'local'
        ? { ok: true, detail: 'local mode: the local workspace' }
        : { ok: slack.connected(), detail: `${slack.mode} mode${slack.connected() ? '' : ', not connected'}` };
    return { store, wallet, slack: slackCheck };
  };
}
