/**
 * Every environment variable the app reads, as one zod schema with each variable's meaning and
 * what applies when it is unset (`.meta`): src/config.ts parses it, and `npm run docs` writes
 * docs/reference/environment.md and .env.example from it.
 */
import { z } from 'zod';
import { parseSecretsKey, SECRETS_KEY_FORMAT } from './secrets-key.js';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const url = (what: string) =>
  optionalString
    .refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), `must be an http(s) URL (${what})`)
    // Credentials in a URL would be shown wherever the URL is (status, logs): they belong in their own variables.
    .refine((v) => v === undefined || !/^https?:\/\/[^/]*@/.test(v), 'must not contain a user name or password');

const intInRange = (min: number, max: number, def: number) =>
  optionalString
    .transform((v) => (v === undefined ? def : Number(v)))
    .refine((n) => Number.isInteger(n) && n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** What the reference page and .env.example say of a variable (scripts/docs). */
const doc = (group: string, description: string, whenUnset: string) => ({ description, group, whenUnset });

/** Every variable the app reads, each with its meaning and what applies when it is unset. */
export const envSchema = z.object({
  PORT: intInRange(0, 65535, 3000).meta(
    doc(
      'Server',
      'HTTP port for Slack requests, wallet webhooks, `/healthz`, `/readyz` and the local workspace.',
      '`3000`',
    ),
  ),
  HOST: optionalString.meta(
    doc(
      'Server',
      'Interface to listen on.',
      '`0.0.0.0`; in local mode `127.0.0.1` (the local workspace lets whoever reaches it act as anyone)',
    ),
  ),
  LOG_LEVEL: optionalString
    .refine(
      (v) => v === undefined || (LOG_LEVELS as readonly string[]).includes(v),
      `must be one of ${LOG_LEVELS.join(', ')}`,
    )
    .meta(doc('Server', 'pino log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.', '`info`')),
  DATA_DIR: optionalString.meta(
    doc('State and policy', 'Directory of the embedded store (one process per directory).', '`./data`'),
  ),
  DATABASE_URL: optionalString
    .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// URL')
    .meta(
      doc(
        'State and policy',
        'PostgreSQL as the system of record (`postgres://user:password@host/db`, PostgreSQL 14 or newer). Replicas on one database elect one leader; the others stand by (`/readyz` 503) and take over when it stops.',
        'the embedded store in `DATA_DIR`',
      ),
    ),
  POLICY_FILE: optionalString.meta(
    doc(
      'State and policy',
      'The treasury policy file.',
      '`./policy.yml`; with the sandbox or the local workspace, `policy.example.yml` when there is none',
    ),
  ),
  PUBLIC_URL: url('the public base URL of this app').meta(
    doc(
      'Webhooks and secrets',
      'Public base URL of the app: the webhook and verification URLs are built from it, and the webhook URL is registered with the wallet service at start.',
      'no registration (with the embedded sandbox, its loopback URL is registered)',
    ),
  ),
  WEBHOOK_SECRET: optionalString
    .refine(
      (v) => v === undefined || /^[A-Za-z0-9_-]{24,}$/.test(v),
      'must be at least 24 characters of letters, digits, - or _ (it is a URL path segment)',
    )
    .meta(
      doc(
        'Webhooks and secrets',
        'Secret path segment of the webhook URL (at least 24 letters, digits, `-` or `_`), and the HMAC key when `WEBHOOK_SIGNATURE=required`.',
        'generated and kept in the store on first start',
      ),
    ),
  WEBHOOK_SECRET_PREVIOUS: optionalString
    .refine(
      (v) => v === undefined || /^[A-Za-z0-9_-]{24,}$/.test(v),
      'must be at least 24 characters of letters, digits, - or _ (the previous WEBHOOK_SECRET)',
    )
    .meta(
      doc(
        'Webhooks and secrets',
        'Only while rotating `WEBHOOK_SECRET`: the old one, accepted for a 10-minute overlap.',
        'none',
      ),
    ),
  SECRETS_KEY: optionalString
    .refine((v) => v === undefined || parseSecretsKey(v) !== undefined, SECRETS_KEY_FORMAT)
    .meta(
      doc(
        'Webhooks and secrets',
        "Encrypts the stored secrets at rest (the approvers' authenticator secrets, the generated webhook secrets): 32 random bytes as 64 hex characters or base64 (`openssl rand -base64 32`).",
        'required with a real Slack workspace; in local mode generated and kept in `DATA_DIR`',
      ),
    ),
  SECRETS_KEY_PREVIOUS: optionalString
    .refine((v) => v === undefined || parseSecretsKey(v) !== undefined, SECRETS_KEY_FORMAT)
    .meta(
      doc(
        'Webhooks and secrets',
        'Only while rotating `SECRETS_KEY`: the old key; secrets it opens are re-encrypted under the new one at start.',
        'none',
      ),
    ),
  WEBHOOK_SIGNATURE: optionalString
    .refine((v) => v === undefined || ['required', 'off'].includes(v), 'must be "required" or "off"')
    .meta(
      doc(
        'Webhooks and secrets',
        '`required`: wallet webhooks must also carry a valid Standard Webhooks HMAC (key `WEBHOOK_SECRET`); `off`: the secret URL alone.',
        '`off`',
      ),
    ),
  SLACK_BOT_TOKEN: optionalString
    .refine((v) => v === undefined || v.startsWith('xoxb-'), 'must be a bot token (xoxb-...)')
    .meta(
      doc(
        'Slack',
        "Bot token (`xoxb-…`), from the app's OAuth & Permissions page; with `SLACK_SIGNING_SECRET` it selects a real Slack workspace (HTTP mode).",
        'local mode: the local workspace stands in for Slack',
      ),
    ),
  SLACK_SIGNING_SECRET: optionalString.meta(
    doc(
      'Slack',
      "Signing secret, from the app's Basic Information page: every Slack request is checked with it.",
      'local mode',
    ),
  ),
  SLACK_APP_TOKEN: optionalString
    .refine((v) => v === undefined || v.startsWith('xapp-'), 'must be an app-level token (xapp-...)')
    .meta(
      doc(
        'Slack',
        'App-level token (`xapp-…`, scope `connections:write`): selects Socket Mode, for an app with no public address.',
        'HTTP mode',
      ),
    ),
  SLACK_API_URL: url('the Slack Web API base, e.g. https://slack.com/api/').meta(
    doc('Slack', 'Base URL of the Slack Web API (tests, or a stand-in on loopback).', "Slack's own"),
  ),
  WALLET_API_BASE_URL: url('the wallet service').meta(
    doc('Wallet service', 'Base URL of the wallet service (https).', 'the embedded sandbox, started with the app'),
  ),
  WALLET_API_KEY: optionalString.meta(doc('Wallet service', 'Merchant secret key.', "the sandbox's")),
  WALLET_PUBLIC_KEY: optionalString.meta(
    doc('Wallet service', 'Merchant public key (sent in request bodies).', "the sandbox's"),
  ),
  WALLET_MERCHANT_EMAIL: optionalString
    .refine((v) => v === undefined || z.email().safeParse(v).success, 'must be an e-mail address')
    .meta(doc('Wallet service', 'Merchant login for the v2 endpoints.', "the sandbox's")),
  WALLET_MERCHANT_PASSWORD: optionalString.meta(
    doc('Wallet service', 'Merchant password for the v2 endpoints.', "the sandbox's"),
  ),
  WALLET_V2_AUTH_SCHEME: optionalString
    .refine((v) => v === undefined || /^[A-Za-z]+$/.test(v), 'must be a single word such as Bearer')
    .meta(
      doc(
        'Wallet service',
        'Authorization scheme of the v2 endpoints, where the spec is silent (docs/wallet-service-choices.md).',
        '`Bearer`',
      ),
    ),
  WALLET_REFRESH_METHOD: optionalString
    .refine((v) => v === undefined || ['POST', 'PUT', 'GET'].includes(v.toUpperCase()), 'must be POST, PUT or GET')
    .meta(
      doc(
        'Wallet service',
        'HTTP method of the session refresh, where the spec is silent: `POST`, `PUT` or `GET`.',
        '`POST`',
      ),
    ),
  WALLET_TIMESTAMP_UNIT: optionalString
    .refine((v) => v === undefined || v === 'ms' || v === 's', 'must be "ms" or "s"')
    .meta(doc('Wallet service', 'Unit of the request timestamps, where the spec is silent: `ms` or `s`.', '`ms`')),
  WALLET_TIMEOUT_MS: intInRange(500, 120_000, 10_000).meta(
    doc('Wallet service', 'Deadline of one wallet service call, in milliseconds (500 to 120000).', '`10000`'),
  ),
  // 50 is the size the spec documents as accepted; a larger one only if the service is known to take it.
  WALLET_PAGE_SIZE: intInRange(1, 1_000, 50).meta(
    doc(
      'Wallet service',
      'Page size of multi-page reads of the transaction list (exports, digest, reconciliation); 50 is documented as accepted.',
      '`50`',
    ),
  ),
  SANDBOX_PORT: intInRange(0, 65535, 4000).meta(
    doc('Sandbox', 'Port of the embedded sandbox wallet service.', '`4000`'),
  ),
  // Read by the sandbox itself (src/sandbox/cli.ts, variety.ts, index.ts), listed here so that every variable is in one schema.
  SANDBOX_HOST: optionalString.meta(
    doc('Sandbox', 'Interface of `npm run sandbox` (the sandbox alone).', '`127.0.0.1`'),
  ),
  SANDBOX_URL: url('the sandbox').meta(
    doc('Sandbox', 'Where `npm run sandbox -- deposit …` sends simulated deposits.', '`http://127.0.0.1:4000`'),
  ),
  SANDBOX_VERIFICATION_URL: url("the app's verification URL").meta(
    doc(
      'Sandbox',
      "`npm run sandbox` alone: the app's verification URL, asked before each withdrawal.",
      'none: withdrawals are not verified',
    ),
  ),
  SANDBOX_MAX_PAGE_SIZE: optionalString.meta(
    doc('Sandbox', 'The sandbox clamps a larger `PageSize` of the transaction list to this.', '`50`'),
  ),
  SANDBOX_VARIETY_SEED: optionalString.meta(
    doc(
      'Sandbox',
      'The sandbox answers in the documented alternative forms (amounts, enums, key case, envelopes) drawn from this seed; `off`: one form only.',
      '`1`',
    ),
  ),
  PRICE_API_URL: url('a CoinGecko-compatible price API base').meta(
    doc(
      'Prices',
      "Base URL of the CoinGecko-compatible price API (`GET <base>/simple/price`; `GET <base>/coins/{id}/history` for the exports' prices of past days).",
      "`https://api.coingecko.com/api/v3`; with the embedded sandbox wallet, the sandbox's own price API",
    ),
  ),
  PRICE_API_KEY: optionalString.meta(
    doc(
      'Prices',
      'CoinGecko API key, sent as `x-cg-pro-api-key` when `PRICE_API_URL` is pro-api.coingecko.com, else as `x-cg-demo-api-key`.',
      "no key (CoinGecko's public rate limits)",
    ),
  ),
  PRICE_API_TIMEOUT_MS: intInRange(500, 60_000, 5_000).meta(
    doc(
      'Prices',
      'A price answer later than this (milliseconds) is refused as late; the last good price stays until `valuation.max_age`.',
      '`5000`',
    ),
  ),
  SANCTIONS_LIST_URL: optionalString
    .refine((v) => v === undefined || !/^https?:\/\/[^/]*@/.test(v), 'must not contain a user name or password')
    .meta(
      doc(
        'Screening',
        'Where the OFAC sanctions list is read (and re-read daily): an http(s) URL or a file path, of one file (one address per line, `#` comments, or a JSON array) or of the per-asset `sanctioned_addresses_<ASSET>.txt` files of 0xB10C/ofac-sanctioned-digital-currency-addresses (a base URL or a directory), e.g. `https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists`.',
        "the snapshot bundled with the app (its age runs from its date, so it turns stale: set this in production); with the embedded sandbox wallet, the sandbox's copy",
      ),
    ),
  SCREENING_API_URL: url('a Chainalysis-compatible sanctions API base').meta(
    doc(
      'Screening',
      'Base URL of a Chainalysis-compatible sanctions API (`GET <base>/api/v1/address/<address>`), asked in addition to the list; answers are kept a day.',
      "no provider: the list alone decides; with the embedded sandbox wallet, the sandbox's own",
    ),
  ),
  SCREENING_API_KEY: optionalString.meta(
    doc('Screening', 'The sanctions API key, sent as `X-API-Key`.', 'required when `SCREENING_API_URL` is set'),
  ),
  SCREENING_API_TIMEOUT_MS: intInRange(200, 10_000, 1_500).meta(
    doc(
      'Screening',
      'A sanctions API answer later than this (milliseconds) counts as down: the list alone decides, and the card says so.',
      '`1500`',
    ),
  ),
  METRICS_PORT: optionalString
    .refine(
      (v) => v === undefined || (/^\d+$/.test(v) && Number(v) <= 65535),
      'must be a whole number from 0 to 65535 (0 turns /metrics off)',
    )
    .meta(
      doc(
        'Server',
        "Port of the Prometheus `GET /metrics` endpoint, on `HOST`'s interface; `0` turns it off.",
        '`9464` (off when `PORT=0`)',
      ),
    ),
});

export interface EnvVariable {
  name: string;
  group: string;
  description: string;
  whenUnset: string;
}

/** The variables of envSchema with their documentation, in the schema's order. */
export function envVariables(): EnvVariable[] {
  const json = z.toJSONSchema(envSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, { description?: string; group?: string; whenUnset?: string }>;
  };
  return Object.entries(json.properties).map(([name, p]) => ({
    name,
    group: p.group ?? 'Other',
    description: p.description ?? '',
    whenUnset: p.whenUnset ?? '',
  }));
}
