/**
 * What the verification callback's HTTP tests share: the app with a known webhook secret and a
 * funded client, a call to its verify route, a withdrawal requested and approved through signed
 * Slack requests, and what the audit log and the fake Slack hold afterwards.
 */
import { createHash } from 'node:crypto';
import { recentAudit } from '../../src/audit/index.js';
import { SANDBOX_MERCHANT } from '../../src/sandbox/index.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { CHANNELS, startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

export const CLIENT = 'payouts@client.example';
export const DEST = '0x2222222222222222222222222222222222222222';
export const SECRET = 'verify-test-secret-5f1c9a7e2b4d';

/** The app on test ports with SECRET as its webhook secret and CLIENT funded in USDT on BSC. */
export async function startVerifyApp(o: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp({ ...o, env: { WEBHOOK_SECRET: SECRET, ...o.env } });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
  return t;
}

/** Independently of the app's code: HEX(SHA512(HEX(SHA512(key)) + reference + ":" + destination)). */
export function expectedChecksum(reference: string, destination = DEST): string {
  const hex = (s: string) => createHash('sha512').update(s, 'utf8').digest('hex').toUpperCase();
  return hex(`${hex(SANDBOX_MERCHANT.apiKey)}${reference}:${destination}`);
}

/** GET the verify route as the wallet service would, `extra` appended to the query as written. */
export async function verify(a: TestApp, reference: string, extra = '', secret = SECRET) {
  const res = await fetch(
    `${a.app.url}/webhooks/wallet/${encodeURIComponent(secret)}/verify?reference=${encodeURIComponent(reference)}${extra}`,
  );
  return { status: res.status, body: (await res.json()) as { isVerified?: boolean; checksum?: string } };
}

export async function request(a: TestApp, amount = '500'): Promise<WithdrawalRequest> {
  const before = a.app.deps.withdrawals.list().length;
  await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
  return until('the request', () =>
    a.app.deps.withdrawals.list().length > before ? a.app.deps.withdrawals.list()[0] : undefined,
  );
}

export async function approve(a: TestApp, r: WithdrawalRequest, user: string = USERS.carol) {
  const card = await until('the card', () =>
    a.fake.channel(CHANNELS.approvals).find((m) => m.text?.includes(r.merchantReference.slice(0, 8))),
  );
  await a.click(
    user,
    { actionId: ACTIONS.approve, value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts } },
  );
}

export const state = (a: TestApp, id: string) => a.app.deps.withdrawals.get(id)?.state;
export const verificationAudit = (a: TestApp) =>
  recentAudit(a.app.deps.store, 1000).filter((e) => e.action === 'verification');
export const alertsPosted = (a: TestApp) =>
  a.fake.channel(CHANNELS.approvals).filter((m) => (m.text ?? '').includes('someone holds the API key'));
/** The plain notice about one of our approved withdrawals (no alarm). */
export const noticesPosted = (a: TestApp) =>
  a.fake
    .channel(CHANNELS.approvals)
    .filter((m) => (m.text ?? '').includes('The wallet service asked to confirm withdrawal'));

/** A withdrawal posted straight to the sandbox with the merchant API key, as whoever holds it could. */
export async function postStraightToSandbox(a: TestApp, reference: string, amount = 250) {
  const res = await fetch(`${a.app.sandbox!.url}/api/merchantClientWithdrawal?api-version=1`, {
    method: 'POST',
    headers: {
      authorization: `ApiKey ${SANDBOX_MERCHANT.apiKey}`,
      'content-type': 'application/json-patch+json; ver=1.0',
    },
    body: `{"amount":${amount},"currency":"USDT","destinationAddress":"${DEST}","merchantClientEmailAddress":"${CLIENT}","networkChain":"BSC","merchantReference":"${reference}","publicKey":"${SANDBOX_MERCHANT.publicKey}"}`,
  });
  return { status: res.status, body: (await res.json()) as { status: number; message: string } };
}
