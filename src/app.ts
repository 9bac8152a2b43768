/**
 * Builds and starts the whole app from a Config, as a list of parts (src/app/*): store,
 * wallet (or the embedded sandbox), policy, Slack target (or the local workspace), outbox,
 * withdrawals, alerts, the Bolt app, the HTTP routes and the jobs. Each part pushes its stop
 * on one cleanup stack, stopped in reverse on stop or when starting fails half-way. main.ts
 * calls it with the environment; tests call it with test ports and directories.
 */
import { readFileSync } from 'node:fs';
import type { DestinationStream } from 'pino';
import { buildAlerts } from './app/alerts.js';
import { CleanupStack } from './app/cleanup.js';
import { readinessProbe } from './app/readiness.js';
import { appRoutes } from './app/routes.js';
import { buildSlackApp, buildSlackTarget, outboxSlackClient } from './app/slack.js';
import { buildStore } from './app/store.js';
import { buildWallet } from './app/wallet.js';
import { buildWithdrawals } from './app/withdrawals.js';
import { configSecrets, type Config } from './config.js';
import type { Deps } from './deps.js';
import { createDigests } from './digest/service.js';
import { createMonthlyExports } from './transactions/monthly.js';
import { startHttpServer, type HttpServer } from './http/server.js';
import { Scheduler } from './jobs/scheduler.js';
import { scheduleJobs } from './jobs/table.js';
import type { LocalWorkspace } from './local/workspace.js';
import { createLogger, type Logger } from './log.js';
import { createOutbox, type OutboxOptions } from './outbox/index.js';
import { loadPolicy, resolvePolicyPath } from './policy/load.js';
import type { Policy } from './policy/schema.js';
import type { Sandbox, SandboxOptions } from './sandbox/index.js';
import { secrets } from './secrets.js';
import type { SlackApp } from './slack/app.js';
import type { StoreOptions } from './store/index.js';
import { registerWebhook, webhookSecret } from './webhooks/registration.js';

export const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
      .version;
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
  outbox?: Partial<
    Pick<OutboxOptions, 'paceMs' | 'baseBackoffMs' | 'maxBackoffMs' | 'burstThreshold' | 'unknownOutcomeDelayMs'>
  >;
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

export async function startApp(o: StartOptions): Promise<RunningApp> {
  const { config } = o;
  const logger = o.logger ?? createLogger({ level: config.logLevel, destination: o.logDestination });
  const now = o.now ?? Date.now;
  secrets.add(...configSecrets(config));
  const cleanup = new CleanupStack(logger);
  // Where the app's own server listens: known only once it does (it starts last, when every
  // route exists). Read late by the local workspace (events URL) and webhook registration.
  const address = { url: '', port: undefined as number | undefined };

  try {
    const { store, onWritable } = await buildStore(
      { dir: config.dataDir, logger, onFatal: o.onFatal, options: o.store },
      cleanup,
    );
    const wallet = await buildWallet({ config, logger, sandbox: o.sandbox }, cleanup);
    const policy =
      o.policy ??
      loadPolicy(resolvePolicyPath(config.policyFile, config.slack.mode === 'local' || !config.wallet.baseUrl));
    const hookSecret = await webhookSecret(config.webhookSecret, store);
    secrets.add(hookSecret);

    const target = await buildSlackTarget(
      {
        config,
        policy,
        logger,
        sandboxUrl: wallet.sandbox?.url,
        eventsUrl: () => `${loopback(address.url)}/slack/events`,
      },
      cleanup,
    );
    const scheduler = new Scheduler(logger.child({ component: 'jobs' }));
    cleanup.push(() => scheduler.stop());
    // With the embedded sandbox the app is reachable on loopback, so its webhooks work with no PUBLIC_URL.
    const webhookBase = () =>
      config.publicUrl ?? (wallet.sandbox && address.port ? `http://127.0.0.1:${address.port}` : undefined);

    const slackClient = outboxSlackClient({
      slackConfig: target.slackConfig,
      localMode: config.slack.mode === 'local',
      logger,
      now,
    });
    const outbox = createOutbox({
      store,
      client: slackClient.client,
      logger: logger.child({ component: 'outbox' }),
      now,
      ...o.outbox,
    });
    cleanup.push(() => outbox.stop());

    const { explorerNet } = wallet;
    const withdrawals = buildWithdrawals(
      {
        store,
        outbox,
        wallet: wallet.client,
        policy,
        groups: slackClient.groups,
        logger,
        now,
        explorerNet,
        slack: slackClient.client,
      },
      cleanup,
    );
    const alerts = buildAlerts(
      {
        config,
        store,
        outbox,
        wallet: wallet.client,
        policy,
        logger,
        secret: hookSecret,
        now,
        withdrawals: withdrawals.service,
        explorerNet,
      },
      cleanup,
    );

    // Before anything new can happen: resume or reconcile what a previous process left; again
    // whenever the disk takes writes after refusing them (withdrawals left mid-way are recovered as at a restart).
    await withdrawals.recover('recovered withdrawals');
    onWritable(() => {
      withdrawals
        .recover('recovered withdrawals after the store could write again')
        .catch((err: unknown) =>
          logger.error({ err }, 'recovering withdrawals after the store could write again failed'),
        );
    });
    // The wallet client's `originBalances()` (issue 15, point 2) is wired here as `balances` once it exists.
    const digests = createDigests({
      store,
      wallet: wallet.client,
      withdrawals: withdrawals.service,
      policy,
      outbox,
      logger,
      now,
      slack: slackClient.client,
    });
    const monthlyExports = createMonthlyExports({
      store,
      wallet: wallet.client,
      policy,
      groups: slackClient.groups,
      slack: slackClient.client,
      logger,
      now,
    });
    scheduleJobs(scheduler, {
      withdrawals: withdrawals.service,
      alerts,
      digest: digests,
      exports: monthlyExports,
    });

    const deps: Deps = {
      config,
      logger,
      store,
      wallet: wallet.client,
      policy,
      scheduler,
      outbox,
      withdrawals: withdrawals.service,
      alerts,
      digests,
      cardPermalink: withdrawals.cardPermalink,
      registerWebhook: (by) =>
        registerWebhook({
          wallet: wallet.client,
          store,
          logger,
          publicUrl: webhookBase(),
          secret: hookSecret,
          by,
          now,
        }),
      walletDescription: wallet.description,
      version: VERSION,
      now,
    };

    const slack = buildSlackApp({ target, deps, groups: slackClient.groups });
    const routes = appRoutes({
      alerts,
      readiness: readinessProbe(deps, slack),
      version: VERSION,
      slack,
      local: target.local,
    });
    const http = await startHttpServer(routes, { port: config.port, host: config.host, logger });
    cleanup.push(() => http.close());
    address.url = http.url;

    if (slack) {
      await slack.start();
      cleanup.push(() => slack.stop());
      outbox.start();
    }
    scheduler.start();
    address.port = http.port;
    if (webhookBase()) {
      deps
        .registerWebhook('startup')
        .catch((err: unknown) => logger.error({ err }, 'webhook registration at startup failed'));
    }

    return {
      url: http.url,
      port: http.port,
      deps,
      sandbox: wallet.sandbox,
      slack,
      local: target.local,
      http,
      stop: () => cleanup.stopAll(),
    };
  } catch (err) {
    await cleanup.stopAll();
    throw err;
  }
}

/** The app's own URL as seen from this process: a wildcard listener is reached on loopback. */
function loopback(url: string): string {
  return url.replace('://localhost:', '://127.0.0.1:');
}
