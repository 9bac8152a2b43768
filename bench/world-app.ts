/**
 * Our whole app (as test/helpers/treasury-app.ts starts it: HTTP mode, test policy, temp data
 * dir, logs written to memory, at production's default level unless BENCH_LOG_LEVEL says) but pointed at a world child process: its wallet service
 * is the world's sandbox (the sandbox merchant's credentials) and its Slack Web API the
 * world's fake, its price API the world sandbox's, as a deployed app talks to remote services.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startApp, type RunningApp, type StartOptions } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { parsePolicy } from '../src/policy/load.js';
import type { Policy } from '../src/policy/schema.js';
import { TEST_POLICY_YAML } from '../test/helpers/treasury-app.js';
import type { World } from './world-client.js';

export interface WorldApp {
  app: RunningApp;
  signingSecret: string;
  stop(): Promise<void>;
}

export interface WorldAppOptions {
  outbox?: StartOptions['outbox'];
  /** Default: a fresh random one. A bare Bolt app compared with this one gets the same. */
  signingSecret?: string;
  /** Default 'info', production's default (the tests log at debug). */
  logLevel?: string;
  /** Default: the tests' policy (TEST_POLICY_YAML). */
  policy?: Policy;
}

export async function startWorldApp(world: World, o: WorldAppOptions = {}): Promise<WorldApp> {
  const signingSecret = o.signingSecret ?? randomBytes(16).toString('hex');
  const logLevel = o.logLevel ?? process.env.BENCH_LOG_LEVEL ?? 'info';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-world-app-'));
  const m = world.info.merchant;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
    DATA_DIR: dataDir,
    SLACK_BOT_TOKEN: `xoxb-bench-${randomBytes(12).toString('hex')}`,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: world.info.fakeSlackUrl,
    WALLET_API_BASE_URL: world.info.sandboxUrl,
    SANCTIONS_LIST_URL: `${world.info.sandboxUrl}/sanctions/`,
    WALLET_API_KEY: m.apiKey,
    WALLET_PUBLIC_KEY: m.publicKey,
    WALLET_MERCHANT_EMAIL: m.email,
    WALLET_MERCHANT_PASSWORD: m.password,
    // The world's copy of CoinGecko: unset, the price job (run at every start) would call the
    // public CoinGecko, which a bench must never reach and which would leave every value unknown.
    PRICE_API_URL: world.info.sandboxUrl,
    // store-pg's STORE_PG_ACK case runs the ack benches on PostgreSQL beside the embedded store.
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  });
  // Logs go to memory, as in the tests: the same logging work, no terminal in the way.
  const destination = new Writable({ write: (_chunk, _enc, cb) => cb() });
  const logger = createLogger({ level: logLevel, destination });
  const app = await startApp({
    config,
    logger,
    policy: o.policy ?? parsePolicy(TEST_POLICY_YAML),
    outbox: { paceMs: 20, baseBackoffMs: 50, maxBackoffMs: 500, ...o.outbox },
  });
  return {
    app,
    signingSecret,
    async stop() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
