/**
 * Builds and starts the whole app from a Config: store, wallet client (or the embedded
 * sandbox), policy, Slack, the HTTP server and the jobs. main.ts calls it with the
 * environment; tests call it with test ports and directories.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import type { DestinationStream } from 'pino';
import { registerCommands } from '../commands/index.js';
import type { CommandDeps } from '../commands/deps.js';
import { withdrawalNotifier } from './slack/withdrawal-notify.js';
import { createAlerts, registerAlertJobs } from './alerts/index.js';
import { registerAlertRenderers } from './slack/alert-messages.js';
import { createOutbox, type OutboxOptions } from './outbox/index.js';
import { registerWebhook } from './webhooks/registration.js';
import { SETTINGS } from './webhooks/settings.js';
import { createWithdrawalService, registerWithdrawalJobs, type WithdrawalService } from './withdrawals/index.js';
import { configSecrets, type Config } from './config.js';
import type { Deps } from './deps.js';
import { sendJson, startHttpServer, type HttpServer, type Route } from './http/server.js';
import { Scheduler } from './jobs/scheduler.js';
import { createLogger, type Logger } from './log.js';
import { loadPolicy, resolvePolicyPath } from './policy/load.js';
import type { GroupResolver } from './policy/people.js';
import type { Policy } from './policy/schema.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox, type SandboxOptions } from './sandbox/index.js';
import { secrets } from './secrets.js';
import { slackGroups } from './slack/access.js';
import { boltLogger } from './slack/bolt-logger.js';
import { createSlackApp, webClientOptions, type SlackApp } from './slack/app.js';
import { openStore, type Store, type StoreOptions } from './store/index.js';
import { startLocalWorkspace, type LocalWorkspace } from './local/workspace.js';
import { createWalletClient } from './wallet/client.js';

export const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

export interface StartOptions {
  config: Config;
  logger?: Logger;
  /** Where log lines go when no logger is given (tests capture them). */
  logDestination?: DestinationStream;
  /** Use this policy instead of loading the file. */
  policy?: Policy;
  now?: () => number;
  /**
   * The store can no longer make memory equal to the disk (it could not even read the disk
   * back after a failed write): the process must stop (main.ts exits; restart recovers from
   * disk). A full disk is not fatal: the store refuses writes until it has room again.
   */
  onFatal?: (err: Error) => void;
  /** Store tuning and its write seam (tests of a failing disk where no real one can be made). */
  store?: Pick<StoreOptions, 'probeIntervalMs' | 'writeGate'>;
  /** Options of the embedded sandbox (tests shorten its webhook delays). */
  sandbox?: Partial<SandboxOptions>;
  /** Tuning the tests need (pacing, backoff); production uses the outbox's defaults. */
  outbox?: Partial<Pick<OutboxOptions, 'paceMs' | 'baseBackoffMs' | 'maxBackoffMs' | 'burstThreshold' | 'unknownOutcomeDelayMs'>>;
}

export interface RunningApp {
  url: string;
  port: number;
  deps: Deps;
  sandbox?: Sandbox;
  slack?: SlackApp;
  /** Local mode: the workspace page and its Web API. */
  local?: LocalWorkspace;
  http: HttpServer;
  stop(): Promise<void>;
}

const NO_GROUPS: GroupResolver = { membersOf: async () => [] };

/** The webhook URL's secret path segment: configured, or generated once and kept in the store. */
async function webhookSecret(config: Config, store: Store): Promise<string> {
  if (config.webhookSecret) return config.webhookSecret;
  return store.commit((tx) => {
    const existing = tx.get(SETTINGS, 'webhookSecret');
    if (existing) return existing.value;
    const value = randomBytes(24).toString('base64url');
    tx.put(SETTINGS, 'webhookSecret', { value });
    return value;
  });
}

export async function startApp(o: StartOptions): Promise<RunningApp> {
  const { config } = o;
  const logger = o.logger ?? createLogger({ level: config.logLevel, destination: o.logDestination });
  const now = o.now ?? Date.now;
  secrets.add(...configSecrets(config));
  const cleanups: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (err) {
        logger.error({ err }, 'error while stopping');
      }
    }
  };

  try {
    // Once the disk takes writes again after refusing them, withdrawals left mid-way (sent, outcome not
    // saved) are recovered as at a restart: marked unknown and reconciled, never resent.
    let onWritable = () => {};
    const store = await openStore({
      dir: config.dataDir,
      logger: logger.child({ component: 'store' }),
      onFailure: o.onFatal,
      onWritable: () => onWritable(),
      ...o.store,
    });
    cleanups.push(() => store.close());

    let sandbox: Sandbox | undefined;
    let wallet = config.wallet;
    if (!wallet.baseUrl) {
      sandbox = await createSandbox({ port: config.sandboxPort, logger: logger.child({ component: 'sandbox' }), timestampUnit: wallet.timestampUnit, ...o.sandbox });
      cleanups.push(() => sandbox!.close());
      wallet = { ...wallet, baseUrl: sandbox.url, ...SANDBOX_MERCHANT };
      secrets.add(SANDBOX_MERCHANT.apiKey, SANDBOX_MERCHANT.password);
    }
    const walletClient = createWalletClient({
      baseUrl: wallet.baseUrl!,
      apiKey: wallet.apiKey!,
      publicKey: wallet.publicKey!,
      email: wallet.email!,
      password: wallet.password!,
      v2AuthScheme: wallet.v2AuthScheme,
      refreshMethod: wallet.refreshMethod,
      timestampUnit: wallet.timestampUnit,
      timeoutMs: wallet.timeoutMs,
      logger: logger.child({ component: 'wallet' }),
    });

    const policy = o.policy ?? loadPolicy(resolvePolicyPath(config.policyFile, config.slack.mode === 'local' || !config.wallet.baseUrl));
    const hookSecret = await webhookSecret(config, store);
    secrets.add(hookSecret);

    // Local mode: the local workspace stands in for Slack (its Web API is SLACK_API_URL, its
    // signing secret and bot token are made up here), and the app runs in HTTP mode against it.
    let local: LocalWorkspace | undefined;
    let slackConfig = config.slack;
    if (config.slack.mode === 'local') {
      local = await startLocalWorkspace({ policy, logger, sandboxUrl: sandbox?.url, eventsUrl: () => `${loopback(httpUrl)}/slack/events` });
      cleanups.push(() => local!.close());
      secrets.add(local.botToken, local.signingSecret);
      slackConfig = { ...config.slack, mode: 'http', botToken: local.botToken, signingSecret: local.signingSecret, apiUrl: local.apiUrl };
    }
    let httpUrl = '';

    const scheduler = new Scheduler(logger.child({ component: 'jobs' }));
    cleanups.push(() => scheduler.stop());
    let httpPort: number | undefined;
    const webhookBase = () => config.publicUrl ?? (sandbox && httpPort ? `http://127.0.0.1:${httpPort}` : undefined);

    // The outbox gets its own client: no retries inside it (the outbox retries, and knows
    // when a retry could double a post), and 429s come back to it instead of sleeping.
    const outboxClient = new WebClient(slackConfig.botToken, {
      ...webClientOptions(slackConfig.apiUrl),
      retryConfig: { retries: 0 },
      logger: boltLogger(logger.child({ component: 'outbox-web' })),
    });
    const outbox = createOutbox({ store, client: outboxClient, logger: logger.child({ component: 'outbox' }), now, ...o.outbox });
    cleanups.push(() => outbox.stop());

    // User-group membership (policy entries S...) comes from Slack; without Slack, only user ids count.
    const groups = config.slack.mode === 'local' ? NO_GROUPS : slackGroups(outboxClient, logger, now);
    const explorerNet = sandbox ? 'testnet' : 'mainnet';
    // The notifier renders from the service's state and the service notifies through it: tie the knot lazily.
    let service: WithdrawalService | undefined;
    const notifier = withdrawalNotifier({ store, outbox, service: () => service!, policy, logger, explorerNet });
    service = createWithdrawalService({
      store,
      wallet: walletClient,
      policy,
      groups,
      logger: logger.child({ component: 'withdrawals' }),
      now,
      onChange: notifier.onChange,
    });
    const withdrawals = service;
    cleanups.push(() => withdrawals.idle());

    const alerts = createAlerts({
      store,
      outbox,
      wallet: walletClient,
      policy,
      logger,
      secret: hookSecret,
      signatureRequired: config.webhookSignatureRequired,
      now,
      // Inside the webhook's own commit: the request (and its card update) is as durable as the event.
      linkWithdrawal: (tx, e) => {
        withdrawals.applyWithdrawalEvent(tx, { merchantReference: e.merchantReference, status: e.status ?? '', transactionHash: e.event.hash ?? null });
      },
    });
    cleanups.push(() => alerts.stop());
    registerAlertRenderers(outbox, store, { explorer: explorerNet });

    // Before anything new can happen: resume or reconcile what a previous process left.
    const recovered = await withdrawals.recover();
    if (recovered.markedUnknown.length || recovered.resumed.length) logger.warn({ ...recovered, reconcile: undefined }, 'recovered withdrawals');
    await notifier.heal();
    registerWithdrawalJobs(scheduler, withdrawals);
    onWritable = () => {
      withdrawals
        .recover()
        .then((r) => {
          if (r.markedUnknown.length || r.resumed.length) logger.warn({ ...r, reconcile: undefined }, 'recovered withdrawals after the store could write again');
          return notifier.heal();
        })
        .catch((err: unknown) => logger.error({ err }, 'recovering withdrawals after the store could write again failed'));
    };
    registerAlertJobs(scheduler, alerts);

    const deps: Deps = {
      config,
      logger,
      store,
      wallet: walletClient,
      policy,
      scheduler,
      outbox,
      withdrawals,
      alerts,
      registerWebhook: (by) => registerWebhook({ wallet: walletClient, store, logger, publicUrl: webhookBase(), secret: hookSecret, by, now }),
      walletDescription: sandbox ? `embedded sandbox (${sandbox.url})` : wallet.baseUrl!,
      explorerNet,
      version: VERSION,
      now,
    };

    let slack: SlackApp | undefined;
    if (slackConfig.mode !== 'local') {
      slack = createSlackApp({
        mode: slackConfig.mode,
        botToken: slackConfig.botToken!,
        signingSecret: slackConfig.signingSecret!,
        appToken: slackConfig.appToken,
        apiUrl: slackConfig.apiUrl,
        logger,
      });
      const commandDeps: CommandDeps = { ...deps, groups };
      const names = registerCommands(slack.app, commandDeps);
      local?.setCommands(names);
    }

    const readiness = readinessProbe(deps, slack);
    const routes: Route[] = [
      { method: 'POST', path: '/webhooks/wallet/:secret', handler: (req, res, params) => alerts.handler(req, res, { secret: params.secret ?? '' }) },
      { method: 'GET', path: '/healthz', handler: (_req, res) => sendJson(res, 200, { ok: true, version: VERSION }) },
      {
        method: 'GET',
        path: '/readyz',
        handler: async (_req, res) => {
          const checks = await readiness();
          sendJson(res, Object.values(checks).every((c) => c.ok) ? 200 : 503, checks);
        },
      },
    ];
    if (slack?.requestListener) {
      const listener = slack.requestListener;
      routes.push({ method: 'POST', path: '/slack/events', handler: (req, res) => listener(req, res) });
    }
    if (local) routes.push(...local.routes);
    const http = await startHttpServer(routes, { port: config.port, host: config.host, logger });
    cleanups.push(() => http.close());
    httpUrl = http.url;

    if (slack) {
      await slack.start();
      cleanups.push(() => slack!.stop());
      outbox.start();
    }
    scheduler.start();
    // With the embedded sandbox the app is reachable on loopback, so its webhooks work with no PUBLIC_URL.
    httpPort = http.port;
    if (webhookBase()) {
      deps.registerWebhook('startup').catch((err: unknown) => logger.error({ err }, 'webhook registration at startup failed'));
    }

    return { url: http.url, port: http.port, deps, sandbox, slack, local, http, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The app's own URL as seen from this process: a wildcard listener is reached on loopback. */
function loopback(url: string): string {
  return url.replace('://localhost:', '://127.0.0.1:');
}

interface Check {
  ok: boolean;
  detail: string;
}

/** A failed login is not retried by readiness probes more often than this (no lockouts, no hammering). */
const LOGIN_PROBE_INTERVAL_MS = 30_000;

function readinessProbe(deps: Deps, slack: SlackApp | undefined): () => Promise<Record<string, Check>> {
  let lastAttempt = 0;
  let lastError: string | undefined;
  return async () => {
    const s = deps.store.stats();
    const h = deps.store.health();
    const store: Check = h.writable
      ? { ok: true, detail: `${s.records} records` }
      : { ok: false, detail: `cannot write since ${new Date(h.since).toISOString()}: ${h.error.code ?? h.error.reason} (${h.error.reason.replace('_', ' ')}); reads work, writes are refused until it has room` };
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
