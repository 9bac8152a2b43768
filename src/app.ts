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
import { buildBalances } from './app/balances.js';
import { CleanupStack } from './app/cleanup.js';
import { readinessProbe } from './app/readiness.js';
import { appRoutes } from './app/routes.js';
import { buildSlackApp, buildSlackTarget, outboxSlackClient } from './app/slack.js';
import { buildStepUp } from './app/step-up.js';
import { buildStore } from './app/store.js';
import { buildWallet } from './app/wallet.js';
import { buildWithdrawals } from './app/withdrawals.js';
import { configSecrets, type Config } from './config.js';
import { createFreezeService } from './freeze/service.js';
import type { Deps } from './deps.js';
import { createDigests } from './digest/service.js';
import { createMonthlyExports } from './transactions/monthly.js';
import { startHttpServer, type HttpServer } from './http/server.js';
import { Scheduler } from './jobs/scheduler.js';
import { scheduleJobs, scheduleProblems } from './jobs/table.js';
import { jobNoticeSender } from './jobs/notices.js';
import { Retention } from './jobs/retention.js';
import { registerJobNoticeRenderer } from './slack/job-messages.js';
import type { LocalWorkspace } from './local/workspace.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { startMetricsServer } from './metrics/server.js';
import { alertDelayRecorder, attachSources } from './metrics/sources.js';
import { createOutbox, type OutboxOptions } from './outbox/index.js';
import { resolvePolicyPath } from './policy/load.js';
import { createPolicyGovernor } from './policy/governance/governor.js';
import type { GroupResolver } from './policy/people.js';
import type { Policy } from './policy/schema.js';
import { registerPolicyChangeRenderers } from '../commands/treasury/policy-change.js';
import type { Sandbox, SandboxOptions } from './sandbox/index.js';
import { secrets } from './secrets.js';
import { freezeNotifier } from './slack/freeze-notice.js';
import { registerDigestRenderer } from './slack/digest-message.js';
import { describePolicyChange } from './slack/policy-change-words.js';
import { registerVerificationAlerts } from './slack/verification-notice.js';
import { verificationHandler } from './verification/handler.js';
import type { SlackApp } from './slack/app.js';
import type { StoreOptions } from './store/index.js';
import { openWebhookSecrets } from './webhooks/secrets.js';
import { webhookParts } from './webhooks/wiring.js';
import { registerWebhookRotationRenderer } from '../commands/treasury/webhook-rotate.js';

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
  /**
   * Watch the policy file for changes (default true). Tests that rewrite the file turn it off
   * and call `checkPolicyFile()` themselves, so a watch event never races their own check.
   */
  watchPolicyFile?: boolean;
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
  /** This app's metrics registry (one per app: several apps may run in one process). */
  metrics: Metrics;
  /** Where /metrics is served; undefined when METRICS_PORT=0. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export async function startApp(o: StartOptions): Promise<RunningApp> {
  const { config } = o;
  const logger = o.logger ?? createLogger({ level: config.logLevel, destination: o.logDestination });
  const now = o.now ?? Date.now;
  secrets.add(...configSecrets(config));
  const cleanup = new CleanupStack(logger);
  const metrics = createMetrics();
  // Where the app's own server listens: known only once it does (it starts last, when every
  // route exists). Read late by the local workspace (events URL) and webhook registration.
  const address = { url: '', port: undefined as number | undefined };

  try {
    const { store, onWritable } = await buildStore(
      {
        dir: config.dataDir,
        logger,
        onFatal: o.onFatal,
        options: o.store,
        onCommitDurable: (s) => metrics.storeCommitDuration.observe(s),
      },
      cleanup,
    );
    // The embedded sandbox plays the service's side of the verification callback: it asks the
    // app's own verify route, known once the app listens (sends resumed at startup wait for it).
    // It asks with the current secret at each call, as if the admin pasted the URL after a rotation.
    const ownBase = deferred<string>();
    const wallet = await buildWallet(
      {
        config,
        logger,
        sandbox: {
          verificationUrl: () => ownBase.promise.then((b) => verifyUrl(b, hookSecrets.current())),
          ...o.sandbox,
        },
        onCall: (operation, outcome, seconds) => {
          metrics.walletRequests.inc({ operation, outcome });
          metrics.walletRequestDuration.observe({ operation }, seconds);
        },
      },
      cleanup,
    );
    // The policy in force is the last approved one (src/policy/governance): every part reads it
    // through a `policy` getter at the moment of use, so an approved change applies at once.
    // Parts built later are reached through `late` (the governor is needed before they exist).
    const late: { outbox?: ReturnType<typeof createOutbox>; groups?: GroupResolver; recheck?: () => Promise<unknown> } =
      {};
    const governor = createPolicyGovernor({
      store,
      outbox: { enqueue: (tx, req) => late.outbox!.enqueue(tx, req) },
      logger,
      now,
      groups: { membersOf: (g) => late.groups?.membersOf(g) ?? Promise.resolve([]) },
      path: o.policy
        ? undefined
        : resolvePolicyPath(config.policyFile, config.slack.mode === 'local' || !config.wallet.baseUrl),
      fixed: o.policy,
      check: (p) => scheduleProblems(p.schedule),
      describe: describePolicyChange,
      onApplied: () => late.recheck?.(),
    });
    await governor.load();
    cleanup.push(async () => governor.stop());
    // The webhook (and verification) URL's secret: the current one, and the one before a rotation for its overlap.
    const hookSecrets = await openWebhookSecrets({
      configured: config.webhookSecret,
      previous: config.webhookSecretPrevious,
      store,
      logger,
      now,
    });

    const target = await buildSlackTarget(
      {
        config,
        get policy(): Policy {
          return governor.current();
        },
        logger,
        sandboxUrl: wallet.sandbox?.url,
        eventsUrl: () => `${loopback(address.url)}/slack/events`,
      },
      cleanup,
    );
    // With the embedded sandbox the app is reachable on loopback, so its webhooks work with no PUBLIC_URL.
    const webhookBase = () =>
      config.publicUrl ?? (wallet.sandbox && address.port ? `http://127.0.0.1:${address.port}` : undefined);

    const slackClient = outboxSlackClient({
      slackConfig: target.slackConfig,
      localMode: config.slack.mode === 'local',
      logger,
      now,
      metrics,
    });
    const outbox = createOutbox({
      store,
      client: slackClient.client,
      logger: logger.child({ component: 'outbox' }),
      now,
      onSent: alertDelayRecorder(metrics, store, now),
      ...o.outbox,
    });
    cleanup.push(() => outbox.stop());
    late.outbox = outbox;
    late.groups = slackClient.groups;
    registerPolicyChangeRenderers(outbox, governor);
    registerWebhookRotationRenderer(outbox);

    const stepUp = await buildStepUp({ config, store, outbox, policy: () => deps.policy, logger, now });
    // Job runs are persisted; a failing job warns the admins once, through the outbox.
    const scheduler = new Scheduler(logger.child({ component: 'jobs' }), {
      store,
      now,
      notify: jobNoticeSender(outbox, () => deps.policy),
    });
    registerJobNoticeRenderer(outbox);
    cleanup.push(() => scheduler.stop());

    const { explorerNet } = wallet;
    const balances = buildBalances({
      store,
      outbox,
      wallet: wallet.client,
      policy: () => governor.current(),
      logger,
      now,
    });
    const withdrawals = buildWithdrawals(
      {
        store,
        outbox,
        wallet: wallet.client,
        get policy(): Policy {
          return governor.current();
        },
        allowlistApprovals: () => governor.addressApprovals(),
        policyInForceSince: () => Date.parse(governor.inForce()?.approvedAt ?? '1970-01-01T00:00:00Z'),
        groups: slackClient.groups,
        logger,
        now,
        explorerNet,
        slack: slackClient.client,
        balances,
        metrics,
      },
      cleanup,
    );
    const freeze = createFreezeService({
      store,
      policy: () => deps.policy,
      groups: slackClient.groups,
      now,
      logger: logger.child({ component: 'freeze' }),
      withdrawals: withdrawals.service,
      onChange: freezeNotifier({ outbox, store, policy: () => deps.policy }),
    });
    registerVerificationAlerts({ outbox, store, policy: () => deps.policy });
    const alerts = buildAlerts(
      {
        config,
        store,
        outbox,
        wallet: wallet.client,
        get policy(): Policy {
          return governor.current();
        },
        logger,
        secret: () => hookSecrets.accepted(),
        now,
        withdrawals: withdrawals.service,
        explorerNet,
      },
      cleanup,
    );

    // An approved policy change: pending requests judged under it, and jobs moved to its schedule.
    late.recheck = async () => {
      await scheduler.reschedule();
      return withdrawals.service.recheckPending();
    };
    // Recovery (and the policy file check: the file as it is now against the approved policy,
    // a difference becoming a proposed change) run once the HTTP server listens, below.
    const retention = new Retention({
      store,
      policy: () => deps.policy,
      logger: logger.child({ component: 'retention' }),
      now,
    });
    const digests = createDigests({
      store,
      wallet: wallet.client,
      withdrawals: withdrawals.service,
      get policy(): Policy {
        return governor.current();
      },
      outbox,
      logger,
      now,
      slack: slackClient.client,
      balances: () => wallet.client.originBalances(),
    });
    registerDigestRenderer(outbox, store);
    const monthlyExports = createMonthlyExports({
      store,
      wallet: wallet.client,
      get policy(): Policy {
        return governor.current();
      },
      groups: slackClient.groups,
      slack: slackClient.client,
      logger,
      now,
    });

    // Registrations and rotations one at a time, each reading the secret in its turn.
    const hooks = webhookParts({
      secrets: hookSecrets,
      wallet: wallet.client,
      store,
      logger,
      publicUrl: webhookBase,
      outbox,
      policy: () => deps.policy,
      now,
    });
    const deps: Deps = {
      config,
      logger,
      store,
      wallet: wallet.client,
      get policy(): Policy {
        return governor.current();
      },
      policyGovernance: governor,
      scheduler,
      outbox,
      withdrawals: withdrawals.service,
      stepUp,
      alerts,
      balances,
      digests,
      cardPermalink: withdrawals.cardPermalink,
      registerWebhook: hooks.register,
      webhookRotation: hooks.rotation,
      walletDescription: wallet.description,
      freeze,
      verificationUrl: () => {
        const base = config.publicUrl ?? (wallet.sandbox && address.url ? loopback(address.url) : undefined);
        return base && verifyUrl(base, hookSecrets.current());
      },
      version: VERSION,
      now,
    };

    // After deps: each job reads its schedule from the policy in force. The governor checks a file's
    // `schedule:` names against the job table before accepting it; a policy approved under an older
    // version of the app may name a job that is gone: logged and ignored, never a start refused for good.
    scheduleJobs(
      scheduler,
      {
        withdrawals: withdrawals.service,
        alerts,
        balances: balances.watch,
        store: retention,
        digest: digests,
        exports: monthlyExports,
      },
      () => deps.policy,
      { refuse: false, logger },
    );
    attachSources(metrics, {
      store,
      policy: () => deps.policy,
      freezeActive: () => freeze.current() !== undefined,
      scheduler,
      now,
    });
    const slack = buildSlackApp({ target, deps, groups: slackClient.groups });
    const routes = appRoutes({
      alerts,
      readiness: readinessProbe(deps, slack),
      version: VERSION,
      slack,
      local: target.local,
      verification: verificationHandler({
        store,
        outbox,
        policy: () => deps.policy,
        secret: () => hookSecrets.accepted(),
        secretKey: wallet.secretKey,
        logger: logger.child({ component: 'verification' }),
        now,
      }),
      metrics,
    });
    const http = await startHttpServer(routes, { port: config.port, host: config.host, logger });
    cleanup.push(() => http.close());
    const metricsServer =
      config.metricsPort > 0
        ? await startMetricsServer(metrics, { port: config.metricsPort, host: config.host, logger })
        : undefined;
    if (metricsServer) cleanup.push(() => metricsServer.close());
    // Stopping: the sends in flight finish first, while the verify route still answers their
    // verification calls (the server closes after; cleanup runs in reverse).
    cleanup.push(() => withdrawals.service.idle());
    // Before that wait: Slack's requests stop starting work, and those taken finish theirs (a
    // click could otherwise claim a send after the wait). Pushed as soon as the server listens,
    // so a start that fails later still stops them.
    if (slack?.mode === 'http') cleanup.push(() => slack.stop());
    address.url = http.url;
    ownBase.resolve(loopback(http.url));
    logger.info({ port: http.port }, 'HTTP server listening');
    // Only now that the verify route answers: resume or reconcile what a previous process left
    // (a resumed send's verification call must find us listening), then the policy file check
    // (an approved change may send pending requests), and again whenever the disk takes writes
    // after refusing them (withdrawals left mid-way are recovered as at a restart).
    await withdrawals.recover('recovered withdrawals');
    await governor.checkPolicyFile();
    onWritable(() => {
      withdrawals
        .recover('recovered withdrawals after the store could write again')
        .catch((err: unknown) =>
          logger.error({ err }, 'recovering withdrawals after the store could write again failed'),
        );
    });

    if (slack) {
      await slack.start();
      if (slack.mode === 'socket') cleanup.push(() => slack.stop());
      outbox.start();
    }
    scheduler.start();
    if (o.watchPolicyFile !== false) governor.watch();
    address.port = http.port;
    hooks.registerAtStartup();

    return {
      url: http.url,
      port: http.port,
      deps,
      sandbox: wallet.sandbox,
      slack,
      local: target.local,
      http,
      metrics,
      metricsUrl: metricsServer?.url,
      stop: () => cleanup.stopAll(),
    };
  } catch (err) {
    await cleanup.stopAll();
    throw err;
  }
}

/** The verification callback's URL under `base` (secret included: never log or post it). */
function verifyUrl(base: string, secret: string): string {
  return `${base.replace(/\/+$/, '')}/webhooks/wallet/${encodeURIComponent(secret)}/verify`;
}

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The app's own URL as seen from this process: a wildcard listener is reached on loopback. */
function loopback(url: string): string {
  return url.replace('://localhost:', '://127.0.0.1:');
}
