/**
 * `GET /api/v1/walletBalance/originAccounts?publicKey=` (public-facts.md): the merchant's
 * balances per currency and network. The sandbox keeps one balance per client and asset
 * (deposits credit it, withdrawals debit amount + fee); the origin account of an asset is the
 * sum over the merchant's clients, so it moves with every deposit, withdrawal and fee.
 * Rows carry `currency` (the code); with `keyField` they name it `key`, as one public client reads it.
 */
import { CURRENCIES, lookup, NETWORKS } from '../wallet/enums.js';
import { jsonDecimal } from '../wallet/json.js';
import { requireApiKey, type AuthDeps } from './auth.js';
import { v1Fail, v1Ok, type Reply } from './envelopes.js';
import type { SandboxRequest } from './http.js';
import { formatMoney } from './money.js';

export function originBalances(deps: AuthDeps & { keyField: () => boolean }, req: SandboxRequest): Reply {
  const auth = requireApiKey(deps, req);
  if (!auth.ok) return auth.reply;
  const publicKey = req.query.get('publicKey') ?? req.query.get('publickey');
  if (!publicKey?.trim()) return v1Fail('Invalid request', 'publicKey is required');
  if (publicKey.trim() !== auth.merchant.publicKey)
    return v1Fail('Invalid public key', 'publicKey does not belong to this merchant');
  const field = deps.keyField() ? 'key' : 'currency';
  const rows = deps.state
    .originBalances(auth.merchant.email)
    .sort((a, b) => a.currency - b.currency || a.network - b.network)
    .map((r) => ({
      [field]: lookup(CURRENCIES, r.currency)?.code ?? r.currency,
      networkChain: lookup(NETWORKS, r.network)?.code ?? r.network,
      balance: jsonDecimal(formatMoney(r.balance)),
    }));
  return v1Ok(rows);
}
