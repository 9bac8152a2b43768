/**
 * Environment -> typed configuration. Every problem is collected and reported at once,
 * naming the variable; a secret's value is never echoed back.
 */
import { envSchema } from './env-schema.js';

export { envSchema, envVariables, type EnvVariable } from './env-schema.js';

export type SlackMode = 'local' | 'http' | 'socket';

export interface Config {
  port: number;
  host: string;
  logLevel: string;
  dataDir: string;
  /** PostgreSQL as the system of record, with leader election (src/store/pg/); undefined: the embedded store. */
  databaseUrl?: string;
  policyFile: string | undefined;
  publicUrl: string | undefined;
  webhookSecret: string | undefined;
  /** Only while rotating WEBHOOK_SECRET: the old one, accepted for the overlap (src/webhooks/secrets.ts). */
  webhookSecretPrevious: string | undefined;
  /** Seals TOTP secrets at rest (src/stepup/seal.ts); undefined: generated in local mode, else startup refuses. */
  secretsKey: string | undefined;
  /** The key before a rotation: secrets it opens are re-sealed under secretsKey at start. */
  secretsKeyPrevious: string | undefined;
  webhookSignatureRequired: boolean;
  slack: {
    mode: SlackMode;
    botToken: string | undefined;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
  };
  wallet: {
    /** undefined: run the embedded sandbox and use its credentials. */
    baseUrl: string | undefined;
    apiKey: string | undefined;
    publicKey: string | undefined;
    email: string | undefined;
    password: string | undefined;
    v2AuthScheme: string;
    refreshMethod: 'POST' | 'PUT' | 'GET';
    timestampUnit: 'ms' | 's';
    timeoutMs: number;
    /** Page size of every multi-page read of the transaction list (src/wallet/pager.ts). */
    pageSize: number;
  };
  sandboxPort: number;
  /** The price API (src/prices): CoinGecko's or a compatible one; `url` undefined: the embedded sandbox's with the embedded wallet, else CoinGecko's. */
  prices: { url: string | undefined; key: string | undefined; timeoutMs: number };
  /** Screening (src/screening): the list's source, and a Chainalysis-compatible provider (`url` and `key` together). */
  screening: { listUrl: string | undefined; apiUrl: string | undefined; apiKey: string | undefined; timeoutMs: number };
  /** Prometheus /metrics; 0: off. */
  metricsPort: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose values are secrets: never echoed in errors, registered for scrubbing. */
export const SECRET_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'WALLET_API_KEY',
  'WALLET_MERCHANT_PASSWORD',
  'WEBHOOK_SECRET',
  'WEBHOOK_SECRET_PREVIOUS',
  'SECRETS_KEY',
  'SECRETS_KEY_PREVIOUS',
  'DATABASE_URL',
  'PRICE_API_KEY',
  'SCREENING_API_KEY',
] as const;

/** Rules between variables, checked on the raw text so they are reported with every format problem. */
function crossFieldProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  // Slack credentials come in pairs; half a pair is a mistake worth stopping for.
  if (set('SLACK_BOT_TOKEN') !== set('SLACK_SIGNING_SECRET')) {
    problems.push(
      set('SLACK_BOT_TOKEN')
        ? 'SLACK_SIGNING_SECRET: required when SLACK_BOT_TOKEN is set'
        : 'SLACK_BOT_TOKEN: required when SLACK_SIGNING_SECRET is set',
    );
  }
  if (set('SCREENING_API_URL') !== set('SCREENING_API_KEY'))
    problems.push(
      set('SCREENING_API_URL')
        ? 'SCREENING_API_KEY: required when SCREENING_API_URL is set'
        : 'SCREENING_API_URL: required when SCREENING_API_KEY is set',
    );
  if (set('SLACK_APP_TOKEN') && !set('SLACK_BOT_TOKEN'))
    problems.push('SLACK_BOT_TOKEN: required when SLACK_APP_TOKEN is set (Socket Mode)');
  const base = (env.WALLET_API_BASE_URL ?? '').trim();
  if (base) {
    for (const name of ['WALLET_API_KEY', 'WALLET_PUBLIC_KEY', 'WALLET_MERCHANT_EMAIL', 'WALLET_MERCHANT_PASSWORD']) {
      if (!set(name)) problems.push(`${name}: required when WALLET_API_BASE_URL is set`);
    }
    // The spec says HTTPS only; plain HTTP is allowed to loopback for tests and local tools.
    if (
      /^https?:\/\/[^/@]+(\/|$)/.test(base) &&
      !/^https:\/\//.test(base) &&
      !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(base)
    ) {
      problems.push(`WALLET_API_BASE_URL: must use https:// (got ${JSON.stringify(base)})`);
    }
  }
  // The local workspace lets whoever reaches it act as anyone in the policy: fine against the
  // sandbox (embedded, or one on loopback), never against a wallet service holding real funds.
  if (base && !set('SLACK_BOT_TOKEN') && !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(base)) {
    problems.push(
      'WALLET_API_BASE_URL: a real wallet service needs a real Slack workspace (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET); ' +
        'without them the app runs the local workspace, where anyone who reaches the page can approve as anyone, so it only runs against the sandbox',
    );
  }
  if (set('WEBHOOK_SECRET_PREVIOUS') && !set('WEBHOOK_SECRET'))
    problems.push(
      'WEBHOOK_SECRET_PREVIOUS: only with WEBHOOK_SECRET (it is the old WEBHOOK_SECRET, accepted for a short overlap while rotating)',
    );
  if ((env.WEBHOOK_SIGNATURE ?? '').trim() === 'required' && !set('WEBHOOK_SECRET')) {
    problems.push('WEBHOOK_SECRET: required when WEBHOOK_SIGNATURE=required (it is the HMAC key)');
  }
  return problems;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '?');
      const value = env[name] ?? '';
      const hidden = (SECRET_VARIABLES as readonly string[]).includes(name) || /:\/\/[^/]*@/.test(value);
      const shown = hidden ? '' : ` (got ${JSON.stringify(env[name])})`;
      problems.push(`${name}: ${issue.message}${shown}`);
    }
  }
  problems.push(...crossFieldProblems(env));
  if (problems.length || !parsed.success) throw new ConfigError(problems);
  const e = parsed.data;

  const mode: SlackMode = !e.SLACK_BOT_TOKEN ? 'local' : e.SLACK_APP_TOKEN ? 'socket' : 'http';
  return {
    port: e.PORT,
    // In local mode the workspace page lets whoever reaches it act as anyone in the policy: loopback only unless HOST says so.
    host: e.HOST ?? (mode === 'local' ? '127.0.0.1' : '0.0.0.0'),
    logLevel: e.LOG_LEVEL ?? 'info',
    dataDir: e.DATA_DIR ?? './data',
    databaseUrl: e.DATABASE_URL,
    policyFile: e.POLICY_FILE,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    webhookSecret: e.WEBHOOK_SECRET,
    webhookSecretPrevious: e.WEBHOOK_SECRET_PREVIOUS,
    secretsKey: e.SECRETS_KEY,
    secretsKeyPrevious: e.SECRETS_KEY_PREVIOUS,
    webhookSignatureRequired: e.WEBHOOK_SIGNATURE === 'required',
    slack: {
      mode,
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
    },
    wallet: {
      baseUrl: e.WALLET_API_BASE_URL?.replace(/\/+$/, ''),
      apiKey: e.WALLET_API_KEY,
      publicKey: e.WALLET_PUBLIC_KEY,
      email: e.WALLET_MERCHANT_EMAIL,
      password: e.WALLET_MERCHANT_PASSWORD,
      v2AuthScheme: e.WALLET_V2_AUTH_SCHEME ?? 'Bearer',
      refreshMethod: (e.WALLET_REFRESH_METHOD?.toUpperCase() ?? 'POST') as 'POST' | 'PUT' | 'GET',
      timestampUnit: (e.WALLET_TIMESTAMP_UNIT ?? 'ms') as 'ms' | 's',
      timeoutMs: e.WALLET_TIMEOUT_MS,
      pageSize: e.WALLET_PAGE_SIZE,
    },
    sandboxPort: e.SANDBOX_PORT,
    prices: { url: e.PRICE_API_URL?.replace(/\/+$/, ''), key: e.PRICE_API_KEY, timeoutMs: e.PRICE_API_TIMEOUT_MS },
    screening: {
      listUrl: e.SANCTIONS_LIST_URL,
      apiUrl: e.SCREENING_API_URL?.replace(/\/+$/, ''),
      apiKey: e.SCREENING_API_KEY,
      timeoutMs: e.SCREENING_API_TIMEOUT_MS,
    },
    // PORT=0 (a random port: tests, several instances on one host) would make every instance
    // fight for the one default metrics port: then metrics are on only when asked for.
    metricsPort: e.METRICS_PORT !== undefined ? Number(e.METRICS_PORT) : e.PORT === 0 ? 0 : 9464,
  };
}

/** The password inside DATABASE_URL (a driver's error may quote it alone). */
function databasePassword(url: string | undefined): string | undefined {
  try {
    return url ? decodeURIComponent(new URL(url).password) || undefined : undefined;
  } catch {
    return undefined;
  }
}

/** The secret values of a configuration, for the scrubbing registry. */
export function configSecrets(c: Config): string[] {
  return [
    c.slack.botToken,
    c.slack.signingSecret,
    c.slack.appToken,
    c.wallet.apiKey,
    c.wallet.password,
    c.webhookSecret,
    c.webhookSecretPrevious,
    c.secretsKey,
    c.secretsKeyPrevious,
    c.databaseUrl,
    databasePassword(c.databaseUrl),
    c.prices.key,
    c.screening.apiKey,
  ].filter((v): v is string => typeof v === 'string');
}
