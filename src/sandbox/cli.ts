/**
 * `npm run sandbox`: the sandbox wallet service on its own.
 *
 *   tsx src/sandbox/cli.ts                                   start on SANDBOX_PORT (default 4000)
 *   tsx src/sandbox/cli.ts deposit <email|address> <amount> <currency> <network>
 *                                                            simulate a deposit on a running sandbox
 *                                                            (SANDBOX_URL, default http://127.0.0.1:4000)
 * Invalid arguments print the usage and exit with status 2.
 */
import { pathToFileURL } from 'node:url';
import { createLogger } from '../log.js';
import { createSandbox, SANDBOX_MERCHANT } from './index.js';

export const USAGE = `Usage:
  npm run sandbox                                     start the sandbox wallet service
                                                      (port: SANDBOX_PORT, default 4000; host: SANDBOX_HOST, default 127.0.0.1)
  npm run sandbox -- deposit <email|address> <amount> <currency> <network>
                                                      simulate a deposit on a running sandbox
                                                      (SANDBOX_URL, default http://127.0.0.1:4000)
Examples:
  npm run sandbox -- deposit ada.okafor@acme-payments.test 250.5 USDT BSC
  npm run sandbox -- deposit 0x0123...cdef 0.25 ETH ETH`;

class UsageError extends Error {}

function parsePort(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 4000;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`SANDBOX_PORT must be a port number, got ${JSON.stringify(text)}`);
  return port;
}

async function serve(env: NodeJS.ProcessEnv): Promise<void> {
  const port = parsePort(env.SANDBOX_PORT);
  const logger = createLogger({ name: 'sandbox', level: env.LOG_LEVEL ?? 'info' });
  // The merchant's withdrawal verification URL (the app's GET /webhooks/wallet/<secret>/verify), as set in the dashboard.
  const verificationUrl = env.SANDBOX_VERIFICATION_URL?.trim() || undefined;
  if (verificationUrl && !URL.canParse(verificationUrl))
    throw new UsageError('SANDBOX_VERIFICATION_URL must be a URL (the app’s …/webhooks/wallet/<secret>/verify)');
  const sb = await createSandbox({
    port,
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    logger,
    ...(verificationUrl ? { verificationUrl } : {}),
  });
  const m = SANDBOX_MERCHANT;
  // The URL carries the app's secret path segment: say whether it is set, never print it.
  console.log(
    verificationUrl
      ? 'Withdrawals are verified with the merchant (SANDBOX_VERIFICATION_URL) before they are executed.'
      : 'SANDBOX_VERIFICATION_URL is not set: withdrawals are executed without asking the merchant.',
  );
  console.log(`Sandbox wallet service listening on ${sb.url}

Merchant credentials (use them as the app's wallet settings):
  WALLET_API_BASE_URL=${sb.url}
  WALLET_MERCHANT_EMAIL=${m.email}
  WALLET_MERCHANT_PASSWORD=${m.password}
  WALLET_API_KEY=${m.apiKey}
  WALLET_PUBLIC_KEY=${m.publicKey}

Simulate a deposit (to a client e-mail or a generated address):
  SANDBOX_URL=${sb.url} npm run sandbox -- deposit ada.okafor@acme-payments.test 250.5 USDT BSC
  curl -X POST ${sb.url}/sandbox/deposits -H 'content-type: application/json' \\
       -d '{"to":"ada.okafor@acme-payments.test","amount":"250.5","currency":"USDT","network":"BSC"}'

Password-reset OTPs appear in the log below. Ctrl+C stops the sandbox.`);
  const stop = () => {
    void sb.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function deposit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.length !== 4) throw new UsageError('deposit takes exactly 4 arguments');
  const [to, amount, currency, network] = args as [string, string, string, string];
  if (!/^\d+(\.\d+)?$/.test(amount))
    throw new UsageError(`amount must be a positive decimal like 250.5, got ${JSON.stringify(amount)}`);
  const base = (env.SANDBOX_URL ?? 'http://127.0.0.1:4000').replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, amount, currency, network }),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    console.error(
      `Could not reach the sandbox at ${base}${cause ? ` (${cause})` : ''}. Is it running? Start it with: npm run sandbox`,
    );
    return 1;
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const message = (body as { error?: unknown } | undefined)?.error;
    console.error(
      `Deposit refused (HTTP ${res.status}): ${typeof message === 'string' ? message : text.slice(0, 300)}`,
    );
    return 1;
  }
  const tx = body as Record<string, unknown>;
  console.log(
    `Deposit recorded: ${String(tx.amount)} ${String(tx.currency)} on ${String(tx.network)} to ${String(tx.toAddress)} (${String(tx.transactionStatus)})
  hash:      ${String(tx.transactionHash)}
  reference: ${String(tx.reference)}
Webhooks: PENDING now, then the final status a few seconds later (if a webhook URL is registered).`,
  );
  return 0;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      await serve(env);
      return undefined;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      console.log(USAGE);
      return 0;
    }
    if (command === 'deposit') return await deposit(rest, env);
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`sandbox: ${(err as Error).message}`);
      process.exitCode = 1;
    },
  );
}
