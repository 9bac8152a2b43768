/** Entry point: configuration from the environment, start everything, stop cleanly on a signal. */
import { type RunningApp, startApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { DestinationStream } from 'pino';
import { createLogger } from './log.js';
import { PolicyError } from './policy/load.js';
import { StoreLockedError } from './store/index.js';
import { UnfinishedCopyError } from './store/pg/index.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
      process.exit(2);
    }
    throw err;
  }
  // The page's address comes first, before any log line of the start, because it is what
  // someone who just typed `npm start` wants to open (a random port is known only after start).
  const shownHost = ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(config.host) ? 'localhost' : config.host;
  if (config.slack.mode === 'local' && config.port !== 0) {
    process.stdout.write(`Local workspace: http://${shownHost}:${config.port}/ (starting…)\n`);
  }
  const logger = createLogger({ level: config.logLevel, destination: await prettyOnTerminal() });
  // Every promise is handled by design (tests listen for this event); should one slip through,
  // the process stays up and answering, and the log says where to look.
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection (a bug: please report it)'),
  );
  // A standby waits for the lead inside startApp for as long as another replica leads: a stop
  // then aborts that wait rather than waiting for the start to finish.
  const startAbort = new AbortController();
  let startDone!: (app: RunningApp | undefined) => void;
  const started = new Promise<RunningApp | undefined>((resolve) => {
    startDone = resolve;
  });
  // A supervisor (or npm, which forwards to this process: `npm start` execs node) sends SIGTERM;
  // a person presses Ctrl-C. The first signal stops carefully: sends in flight finish, the
  // outbox and store close, the embedded sandbox and the local workspace stop; exit 0. A second
  // signal, or a careful stop still running after STOP_LIMIT_MS (supervisors SIGKILL soon
  // after), exits at once: everything acknowledged is already on disk, so a restart recovers.
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      logger.flush();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.error({ limitMs: STOP_LIMIT_MS }, 'stopping took too long: exiting now');
      logger.flush();
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    // A signal during start: the stop waits for the start to finish (or fail), then undoes it;
    // a replica still waiting for the lead stops waiting.
    startAbort.abort();
    try {
      await (await started)?.stop();
    } catch (err) {
      logger.error({ err }, 'stopping failed part-way');
    }
    logger.info('stopped');
    logger.flush();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  let app: RunningApp;
  try {
    app = await startApp({
      config,
      logger,
      // Only when the store cannot make memory equal to the disk again (not for a full disk,
      // which it survives by refusing writes until there is room): stop, and let a restart recover from disk.
      onFatal: () => {
        logger.flush();
        process.exit(70);
      },
      signal: startAbort.signal,
    });
  } catch (err) {
    startDone(undefined);
    // Stopped while waiting to lead: the stop above finishes (exit 0).
    if (stopping) return;
    if (err instanceof PolicyError || err instanceof StoreLockedError || err instanceof UnfinishedCopyError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    logger.fatal({ err }, 'could not start');
    process.exit(1);
  }
  startDone(app);
  if (stopping) return;
  const lines = [
    app.local ? `Open the local workspace: http://${shownHost}:${app.port}/` : '',
    `Treasury app ${app.deps.version} is running at ${app.url}`,
    `  Slack: ${config.slack.mode === 'local' ? 'the local workspace (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to connect a real one)' : `${config.slack.mode} mode, events at ${app.url}/slack/events`}`,
    `  Wallet service: ${app.deps.walletDescription}`,
    app.sandbox
      ? `  Simulate a deposit: npm run sandbox -- deposit <client-email|address> <amount> <currency> <network>`
      : '',
    `  Health: ${app.url}/healthz  Readiness: ${app.url}/readyz`,
    app.metricsUrl ? `  Metrics: ${app.metricsUrl}` : '',
    `  State: ${app.deps.store.stats().dir}`,
  ].filter(Boolean);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Under the usual 30 s a supervisor waits between SIGTERM and SIGKILL. */
const STOP_LIMIT_MS = 25_000;

/**
 * Human-readable lines on a terminal, JSON lines otherwise (for log collectors). pino-pretty
 * is a development dependency: without it (a production install) the lines stay JSON.
 */
async function prettyOnTerminal(): Promise<DestinationStream | undefined> {
  if (!process.stdout.isTTY) return undefined;
  try {
    const { default: pretty } = await import('pino-pretty');
    return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
  } catch {
    return undefined;
  }
}

void main();
