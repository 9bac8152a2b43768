/** Entry point: configuration from the environment, start everything, stop cleanly on a signal. */
import { type RunningApp, startApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { DestinationStream } from 'pino';
import { createLogger } from './log.js';
import { PolicyError } from './policy/load.js';
import { StoreLockedError } from './store/index.js';

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
    });
  } catch (err) {
    if (err instanceof PolicyError || err instanceof StoreLockedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    logger.fatal({ err }, 'could not start');
    process.exit(1);
  }
  const lines = [
    app.local ? `Open the local workspace: http://${shownHost}:${app.port}/` : '',
    `Treasury app ${app.deps.version} is running at ${app.url}`,
    `  Slack: ${config.slack.mode === 'local' ? 'the local workspace (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to connect a real one)' : `${config.slack.mode} mode, events at ${app.url}/slack/events`}`,
    `  Wallet service: ${app.deps.walletDescription}`,
    app.sandbox
      ? `  Simulate a deposit: npm run sandbox -- deposit <client-email|address> <amount> <currency> <network>`
      : '',
    `  Health: ${app.url}/healthz  Readiness: ${app.url}/readyz`,
    `  State: ${app.deps.store.stats().dir}`,
  ].filter(Boolean);
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await app.stop();
    logger.flush();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

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
