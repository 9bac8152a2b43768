/** Entry point: configuration from the environment, start everything, stop cleanly on a signal. */
import { startApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { PolicyError } from './policy/load.js';
import { StoreLockedError } from './store/index.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel });
  // Every promise is handled by design (tests listen for this event); should one slip through,
  // the process stays up and answering, and the log says where to look.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection (a bug: please report it)'));
  let app;
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
    `Treasury app ${app.deps.version} is running at ${app.url}`,
    `  Slack: ${config.slack.mode === 'local' ? 'none (local mode: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to connect a workspace)' : `${config.slack.mode} mode, events at ${app.url}/slack/events`}`,
    `  Wallet service: ${app.deps.walletDescription}`,
    app.sandbox ? `  Simulate a deposit: npm run sandbox -- deposit <client-email|address> <amount> <currency> <network>` : '',
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

void main();
