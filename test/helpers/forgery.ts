/**
 * Forged withdrawal webhooks and a wallet service that says otherwise, through the sandbox's
 * test-only HTTP endpoints (src/sandbox/forgery.ts): what an outsider who learned the webhook
 * URL can do, and what the service's own status answers.
 */
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';

interface HasSandbox {
  app: { sandbox?: { url: string } | undefined };
}

async function post(t: HasSandbox, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${t.app.sandbox!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A withdrawal webhook as the service's would look (camelCase), claiming `status` for this request. */
export function forgedWithdrawalBody(r: WithdrawalRequest, status: unknown): unknown {
  return {
    transactionType: 'WITHDRAW',
    data: {
      checksum: 'F'.repeat(128),
      receiverAddress: r.destination,
      amountRequested: Number(r.amount),
      amountSent: Number(r.amount),
      charge: 0,
      currency: 4,
      networkChain: r.network,
      status,
      transactionHash: `0x${'ee'.repeat(32)}`,
      merchantReference: r.merchantReference,
    },
  };
}

/** Posts `payload` (any JSON) to the app's registered webhook URL, unsigned; the app's answer. */
export async function forgeWebhook(t: HasSandbox, payload: unknown): Promise<{ status: number | null; body: string }> {
  const res = await post(t, '/sandbox/forged-webhooks', { payload });
  if (res.status !== 200) throw new Error(`forged webhook not delivered: ${JSON.stringify(res.json)}`);
  return res.json as { status: number | null; body: string };
}

/**
 * The status-by-reference operation for this reference: `status` (1 NotFound, 2 Pending,
 * 3 Completed, 4 Failed; null: what the sandbox executed), and/or unavailable (503).
 */
export async function serviceSays(
  t: HasSandbox,
  reference: string,
  o: { status?: number | string | null; unavailable?: boolean },
): Promise<void> {
  const res = await post(t, '/sandbox/withdrawal-status', { reference, ...o });
  if (res.status !== 200) throw new Error(`status control refused: ${JSON.stringify(res.json)}`);
}
