import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger, type Logger } from '../../src/log.js';
import { SecretRegistry } from '../../src/secrets.js';
import { openStore, type Store } from '../../src/store/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/schema.js';
import type { GroupResolver } from '../../src/policy/people.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { createWalletClient, type WalletClient } from '../../src/wallet/client.js';
import {
  createWithdrawalService,
  type WithdrawalServiceOptions,
  type WithdrawalService,
} from '../../src/withdrawals/index.js';
import type { WithdrawalEvent } from '../../src/withdrawals/types.js';
import { fixedPolicy } from '../../src/policy/source.js';

export const quietLogger = (): Logger =>
  createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', secrets: new SecretRegistry() });

export const CLIENT = 'client@example.com';
export const DEST = '0x2222222222222222222222222222222222222222';
export const ALLOWLISTED = '0x1111111111111111111111111111111111111111';
export const T0 = Date.parse('2030-01-01T00:00:00.000Z');

export interface PolicyOptions {
  allowlist?: 'enforce' | 'warn' | 'off';
  dailyLimit?: Record<string, string>;
  expiresAfter?: string;
  remindBefore?: string;
}

export function testPolicy(o: PolicyOptions = {}): Policy {
  const limits = Object.entries(o.dailyLimit ?? { USDT: '50000' })
    .map(([k, v]) => `${k}: "${v}"`)
    .join(', ');
  return parsePolicy(`
channels: { approvals: C0APPROVALS, alerts: C0ALERTS }
people:
  requesters: [U0ALICE, U0BOB, S0REQUEST]
  approvers: [U0CAROL, U0DAVE, U0ERIN, U0FRANK, U0ALICE, S0TREASURY]
  admins: [U0ERIN]
withdrawals:
  expires_after: ${o.expiresAfter ?? '2h'}
  remind_before: ${o.remindBefore ?? '30m'}
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3, must_include: [U0ERIN] }
    ETH:
      - { max: 5, approvals: 1 }
      - { max: 100, approvals: 2, must_include: [S0TREASURY] }
    BTC:
      - { max: 1, approvals: 1 }
  daily_limit: { ${limits} }
  allowlist:
    mode: ${o.allowlist ?? 'warn'}
    addresses:
      - { address: "${ALLOWLISTED}", network: BSC, label: "Exchange hot wallet" }
`);
}

/** S0TREASURY = {U0GRACE}, S0REQUEST = {U0HEIDI}. */
export const groups: GroupResolver = {
  membersOf: async (id) => ({ S0TREASURY: ['U0GRACE'], S0REQUEST: ['U0HEIDI'] })[id] ?? [],
};

export function walletFor(url: string): WalletClient {
  return createWalletClient({
    baseUrl: url,
    apiKey: SANDBOX_MERCHANT.apiKey,
    publicKey: SANDBOX_MERCHANT.publicKey,
    email: SANDBOX_MERCHANT.email,
    password: SANDBOX_MERCHANT.password,
    logger: quietLogger(),
    timeoutMs: 2_000,
    retryBaseMs: 5,
    retryMaxDelayMs: 20,
    secrets: new SecretRegistry(),
  });
}

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'withdrawals-test-'));
}

export interface World {
  dir: string;
  store: Store;
  sandbox: Sandbox;
  wallet: WalletClient;
  policy: Policy;
  service: WithdrawalService;
  events: WithdrawalEvent[];
  clock: { now: number };
  /** Withdrawal POSTs the sandbox received (faulted ones included). */
  posts(): number;
  /** Withdrawals in the sandbox's transaction list with this reference. */
  sandboxWithdrawals(reference: string): number;
  rebuild(o?: Partial<WithdrawalServiceOptions>): WithdrawalService;
  close(): Promise<void>;
}

export async function world(
  o: {
    policy?: PolicyOptions;
    service?: Partial<WithdrawalServiceOptions>;
    balance?: Array<[string, string, string]>;
  } = {},
): Promise<World> {
  const dir = await tempDir();
  const store = await openStore({ dir });
  const sandbox = await createSandbox({ logger: quietLogger(), seed: false });
  for (const [currency, network, amount] of o.balance ?? [
    ['USDT', 'BSC', '1000000'],
    ['ETH', 'ETH', '1000'],
  ]) {
    sandbox.setBalance(CLIENT, currency, network, amount);
  }
  const wallet = walletFor(sandbox.url);
  const policy = testPolicy(o.policy);
  const events: WithdrawalEvent[] = [];
  const clock = { now: T0 };
  // The events are observed where the app observes them: the service's one change hook
  // (`onChange`, inside each change's commit), ahead of any hook a test adds.
  const build = (extra: Partial<WithdrawalServiceOptions> = {}) => {
    const onChange = extra.onChange ?? o.service?.onChange;
    return createWithdrawalService({
      store,
      wallet,
      policy: fixedPolicy(policy),
      groups,
      logger: quietLogger(),
      now: () => clock.now,
      ...o.service,
      ...extra,
      onChange: (e, tx) => {
        events.push(e);
        onChange?.(e, tx);
      },
    });
  };
  const w: World = {
    dir,
    store,
    sandbox,
    wallet,
    policy,
    service: build(),
    events,
    clock,
    posts: () => sandbox.stats.withdrawals,
    sandboxWithdrawals: (ref) =>
      sandbox.transactions().filter((t) => t.transactionType === 'Withdrawal' && t.reference === ref).length,
    rebuild: (extra) => (w.service = build(extra)),
    close: async () => {
      await w.service.idle();
      await store.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return w;
}

export const usdt = (amount: string, extra: Partial<{ destination: string; network: string; note: string }> = {}) => ({
  amount,
  currency: 'USDT',
  network: extra.network ?? 'BSC',
  destination: extra.destination ?? DEST,
  clientEmail: CLIENT,
  note: extra.note ?? 'test payout',
});
