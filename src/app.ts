/**
 * Builds and starts the whole app from a Config, as a list of parts (src/app/*) in dependency
 * order, each given the parts before it and nothing filled in later: store, webhook secrets,
 * wallet (or the embedded sandbox), the policy in force, Slack target (or the local workspace),
 * outbox, the policy governor, withdrawals, alerts, reports, the Bolt app, the HTTP routes and
 * the jobs (docs/architecture.md draws the order). Each part pushes its stop
 * on one cleanup stack, stopped in reverse on stop or when starting fails half-way. main.ts
 * calls it with the environment; tests call it with test ports and directories.
 */
import { buildAlerts } from './app/alerts.js';
import { buildBalances } from './app/balances.js';
import { CleanupStack } from './app/cleanup.js';
import { startInboxDrain } from './app/inbox.js';
import { readinessProbe } from './app/readiness.js';
import { appRoutes } from './app/routes.js';
import { buildSlackApp, buildSlackTarget } from './app/slack.js';
import { buildGovernor, loadPolicy } from './app/policy.js';
import { buildPrices } from './app/prices.js';
import { buildScreening } from './app/screening.js';
import { VERSION } from './app/version.js';
import { buildReports } from './app/reports.js';
import { buildStepUp, resolveKeys } from './app/step-up.js';
import { buildPasskeys } from './app/passkeys.js';
import type { RunningApp, StartOptions } from './app/types.js';
import { deferred, loopback, verifyUrl } from './app/urls.js';
import { buildStore, databaseOptions } from './app/store.js';
import { buildWallet } from './app/wallet.js';
import { buildWithdrawals } from './app/withdrawals.js';
import { configSecrets } from './config.js';
import { createFreezeService } from './freeze/service.js';
import type { Deps } from './deps.js';
import { startHttpServer } from './http/server.js';
import { scheduleJobs } from './jobs/table.js';
import { createLogger } from './log.js';
import { buildMetrics } from './app/metrics.js';
import { buildOutbox } from './app/outbox.js';
import { buildScheduler } from './app/jobs.js';
import { attachSources } from './metrics/sources.js';
import { createStoreCeilingWatch } from './jobs/store-ceiling.js';
import { registerStoreCeilingRenderer } from './slack/store-ceiling-words.js';
import { resolvePolicyPath } from './policy/load.js';
import { registerPolicyChangeRenderers } from '../commands/treasury/policy-change.js';
import { secrets } from './secrets.js';
import { freezeNotifier } from './slack/freeze-notice.js';
import { registerVerificationAlerts } from './slack/verification-notice.js';
import { verificationHandler } from './verification/handler.js';
import { openWebhookSecrets } from './webhooks/secrets.js';
import { webhookParts } from './webhooks/wiring.js';
import { registerWebhookRotationRenderer } from '../commands/treasury/webhook-rotate.js';

export type { RunningApp, StartOptions } from './app/types.js';

export { VERSION } from './app/version.js';

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
    // First, so a replica standing by serves /metrics too (src/app/metrics.ts).
    const observed = await buildMetrics({ config, logger }, cleanup);
    const { metrics } = observed;
    const { store, onWritable, lease, drainInbox } = await buildStore(
      {
        dir: config.dataDir,
        logger,
        onFatal: o.onFatal,
        options: o.store,
        onCommitDurable: (s) => metrics.storeCommitDuration.observe(s),
        database: databaseOptions(config, VERSION),
        signal: o.signal,
      },
      cleanup,
    );
    observed.leading();
    // SECRETS_KEY seals the step-up seeds and the generated webhook secrets.
    const keys = await resolveKeys(config, store);
    // The webhook (and verification) URL's secret: the current one, and the one before a rotation for its overlap.
    const hookSecrets = await openWebhookSecrets({
      configured: config.webhookSecret,
      previous: config.webhookSecretPrevious,
      store,
      keys,
      logger,
      now,
    });
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
        beforeWrite: lease,
      },
      cleanup,
    );
    // The policy in force is the last approved one (src/policy/governance): loaded first, as the
    // one PolicySource every part reads (`current()` at the moment of use, so an approved change
    // applies at once). Loading notifies no one, so it needs only the store; the governor, which
    // proposes, decides and tells the admins, is built below once the outbox and Slack's groups exist.
    const policyPlace = {
      fixed: o.policy,
      path: o.policy
        ? undefined
        : resolvePolicyPath(config.policyFile, config.slack.mode === 'local' || !config.wallet.baseUrl),
    };
    const policy = await loadPolicy({ store, logger, now, ...policyPlace });

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
    // With the embedded sandbox the app is reachable on loopback, so its webhooks work with no PUBLIC_URL.
    const webhookBase = () =>
      config.publicUrl ?? (wallet.sandbox && address.port ? `http://127.0.0.1:${address.port}` : undefined);

    const { outbox, slackClient, order } = buildOutbox(
      { target, localMode: config.slack.mode === 'local', store, logger, now, metrics, lease, tuning: o.outbox },
      cleanup,
    );
    const screening = await buildScreening({ config, wallet, store, outbox, policy, now, logger });
    const governor = buildGovernor(
      { store, policy, outbox, groups: slackClient.groups, logger, now, path: policyPlace.path, screening },
      cleanup,
    );
    registerPolicyChangeRenderers(outbox, governor, policy);
    registerWebhookRotationRenderer(outbox);
    registerStoreCeilingRenderer(outbox);
    const stepUp = await buildStepUp({ keys, store, outbox, policy, logger, now });
    const scheduler = buildScheduler({ store, now, outbox, policy, logger }, cleanup);

    const { explorerNet } = wallet;
    const prices = buildPrices({ config, sandboxUrl: wallet.sandbox?.url, policy, now, logger, store });
    const balances = buildBalances({
      prices: () => prices.snapshot(),
      store,
      outbox,
      wallet: wallet.client,
      policy,
      logger,
      now,
    });
    const withdrawals = buildWithdrawals(
      {
        store,
        outbox,
        wallet: wallet.client,
        policy,
        allowlistApprovals: () => governor.addressApprovals(),
        policyInForceSince: () => Date.parse(governor.inForce()?.approvedAt ?? '1970-01-01T00:00:00Z'),
        groups: slackClient.groups,
        logger,
        now,
        explorerNet,
        slack: slackClient.client,
        files: slackClient.client,
        balances,
        metrics,
        prices: () => prices.snapshot(),
        sendsFirst: order.sendsFirst,
        ...(o.noticeThrottle ? { noticeThrottle: o.noticeThrottle } : {}),
        screening,
      },
      cleanup,
    );
    const passkeys = buildPasskeys({ store, keys, outbox, policy, logger, now, config, address, withdrawals });
    const freeze = createFreezeService({
      store,
      policy,
      groups: slackClient.groups,
      now,
      logger: logger.child({ component: 'freeze' }),
      withdrawals: withdrawals.service,
      onChange: freezeNotifier({ outbox, store, policy }),
    });
    registerVerificationAlerts({ outbox, store, policy });
    const alerts = buildAlerts(
      {
        config,
        store,
        outbox,
        wallet: wallet.client,
        policy,
        logger,
        secret: () => hookSecrets.accepted(),
        now,
        withdrawals: withdrawals.service,
        explorerNet,
        prices: () => prices.snapshot(),
        screening: { listed: screening.service.listed, tell: screening.tell },
      },
      cleanup,
    );
    // An approved policy change: pending requests judged under it, and jobs moved to its schedule.
    policy.onApplied(async () => {
      await scheduler.reschedule();
      return withdrawals.service.recheckPending();
    });
    // Recovery (and the policy file check: the file as it is now against the approved policy,
    // a difference becoming a proposed change) run once the HTTP server listens, below.
    const { retention, digests, monthlyExports } = buildReports({
      store,
      wallet: wallet.client,
      withdrawals: withdrawals.service,
      outbox,
      policy,
      groups: slackClient.groups,
      slack: slackClient.client,
      logger,
      now,
      prices: () => prices.snapshot(),
      ...(prices.days ? { days: prices.days } : {}),
    });

    // Registrations and rotations one at a time, each reading the secret in its turn.
    const hooks = webhookParts({
      secrets: hookSecrets,
      wallet: wallet.client,
      store,
      logger,
      publicUrl: webhookBase,
      outbox,
      policy,
      now,
    });
    const deps: Deps = {
      config,
      logger,
      store,
      wallet: wallet.client,
      policy,
      policyGovernance: governor,
      scheduler,
      outbox,
      ...withdrawals.inDeps,
      stepUp,
      passkeys,
      alerts,
      balances,
      prices,
      screening: screening.service,
      digests,
      cardPermalink: withdrawals.cardPermalink,
      onWithdrawalChange: withdrawals.subscribe,
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
        ...withdrawals.jobParts,
        alerts,
        balances: balances.watch,
        store: retention,
        digest: digests,
        exports: monthlyExports,
        prices,
        screening: screening.service,
        // Only the embedded store has a ceiling: PostgreSQL keeps history in its tables.
        ...(config.databaseUrl
          ? {}
          : {
              capacity: createStoreCeilingWatch({
                store,
                outbox,
                policy,
                logger: logger.child({ component: 'store-ceiling' }),
                now,
                ceiling: o.storeCeiling,
              }),
            }),
      },
      policy,
      { refuse: false, logger },
    );
    attachSources(metrics, { store, policy, freezeActive: () => freeze.current() !== undefined, scheduler, now });
    // Every part has registered its messages' renderers by now: one missing stops the start here,
    // naming it, instead of failing the first message of its kind (src/outbox/renderers.ts).
    outbox.assertRenderers();
    const slack = buildSlackApp({ target, deps, groups: slackClient.groups, lease, acks: order.acks });
    const routes = appRoutes({
      alerts,
      readiness: readinessProbe(deps, slack),
      version: VERSION,
      slack,
      local: target.local,
      verification: verificationHandler({
        store,
        outbox,
        policy,
        secret: () => hookSecrets.accepted(),
        secretKey: wallet.secretKey,
        logger: logger.child({ component: 'verification' }),
        now,
        rules: withdrawals.service.judgedAtCallback,
        onRefused: screening.onVerifyRefused,
      }),
      metrics,
      passkeys: passkeys.routes(slack?.app.client),
    });
    const http = await startHttpServer(routes, { port: config.port, host: config.host, logger });
    cleanup.push(() => http.close());
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
    // Webhooks a standby took drain straight into the alerts' ingestion, no HTTP hop (src/app/inbox.ts).
    if (drainInbox) await startInboxDrain({ drainInbox, alerts, config, store, metrics, secrets: hookSecrets });
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
      metricsUrl: observed.url,
      stop: () => cleanup.stopAll(),
    };
  } catch (err) {
    await cleanup.stopAll();
    throw err;
  }
}
