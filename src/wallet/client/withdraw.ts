/**
 * The withdrawal POST: checked here (amount digits, address format), sent exactly once, and
 * its answer read so that anything but a documented success or refusal is an unknown outcome.
 */
import { addressFamily, describeFormat, isValidAddress } from '../addresses.js';
import { PATHS, WITHDRAWAL_ACCEPT, WITHDRAWAL_CONTENT_TYPE, WITHDRAWAL_QUERY } from '../assumptions.js';
import { WalletError, WalletUnknownOutcomeError } from '../errors.js';
import { inputError, serviceMessage, shapeError } from '../failures.js';
import type { HttpResponse } from '../http.js';
import { jsonDecimal, stringifyJson } from '../json.js';
import { toWithdrawalResult, withdrawInputSchema, withdrawResponseSchema, type WithdrawalResult } from '../schemas.js';
import { is2xx, refusal, resolveCurrency, resolveNetwork, type WalletCalls } from './calls.js';
import type { WithdrawInput } from './types.js';

export function withdraw(c: WalletCalls, i: WithdrawInput): Promise<WithdrawalResult> {
  return c.guard('withdraw', async () => {
    const input = withdrawInputSchema.safeParse(i);
    if (!input.success) throw inputError('withdraw', input.error);
    const currency = resolveCurrency('withdraw', i.currency);
    const network = resolveNetwork('withdraw', i.network);
    const { amount, destinationAddress, clientEmail, merchantReference } = input.data;
    const fraction = amount.split('.')[1] ?? '';
    if (fraction.length > currency.decimals) {
      throw inputError(
        'withdraw',
        `amount has ${fraction.length} decimal places; ${currency.name} allows at most ${currency.decimals}`,
      );
    }
    const family = addressFamily(network);
    if (!isValidAddress(family, destinationAddress)) {
      throw inputError(
        'withdraw',
        `destinationAddress is not ${describeFormat(family)} (${currency.name} on ${network.name})`,
      );
    }
    // The amount goes out as a JSON number with exactly the approved digits; the body
    // is serialized here so that axios never turns it into a binary float.
    const body = stringifyJson({
      amount: jsonDecimal(amount),
      currency: String(currency.code),
      destinationAddress,
      merchantClientEmailAddress: clientEmail,
      networkChain: String(network.code),
      merchantReference,
      publicKey: c.options.publicKey,
    });
    // Sent exactly once, on a connection of its own. No retry on network errors, timeouts
    // or 5xx: the service may have processed the request, and a resend could pay twice.
    // A 401, on the other hand, is a definite rejection before processing, so re-auth and
    // one resend would be safe ONLY for a 401; but this endpoint authenticates with the
    // static API key, which re-authenticating cannot change, so a 401 is surfaced as an
    // auth error instead of being resent.
    const res = await c.once(
      'withdraw',
      {
        method: 'POST',
        path: PATHS.withdrawal,
        params: { ...WITHDRAWAL_QUERY },
        headers: { 'Content-Type': WITHDRAWAL_CONTENT_TYPE, Accept: WITHDRAWAL_ACCEPT, ...c.apiKeyHeader },
        body,
        freshConnection: true,
      },
      c.deadlineFromNow(),
      merchantReference,
    );
    try {
      return readWithdrawal(res, merchantReference);
    } catch (err) {
      if (err instanceof WalletError) throw err;
      // Once the request has been answered, even a bug of ours in reading the answer must
      // not look like "nothing happened".
      throw new WalletUnknownOutcomeError(
        'Withdrawal outcome unknown: the answer could not be processed. The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.',
        { operation: 'withdraw', status: res.status, merchantReference },
      );
    }
  });
}

function readWithdrawal(res: HttpResponse, merchantReference: string): WithdrawalResult {
  if (!is2xx(res.status)) {
    // Only what the spec documents as a refusal is one: 400 (its failure envelope), and 401/403
    // (credentials are checked before anything is processed). A redirect after processing, a
    // 409 "duplicate reference", a proxy's 408/429: any of these may follow a real payout.
    if (res.status === 400 || res.status === 401 || res.status === 403) refusal('withdraw', res, 'apiKey');
    throw new WalletUnknownOutcomeError(
      `Withdrawal outcome unknown: the wallet service answered HTTP ${res.status}, which is not a documented refusal. The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.`,
      { operation: 'withdraw', status: res.status, merchantReference },
    );
  }
  const envelopeStatus = (res.body as { status?: unknown } | undefined)?.status;
  // 1, "1" or true: the envelope's success (public-facts.md: numbers, numeric strings, booleans all seen).
  if (envelopeStatus !== undefined && String(envelopeStatus) !== '1' && envelopeStatus !== true) {
    // A success status with a failure envelope is not a documented answer: we cannot
    // tell whether the money moved, so it is reconciled rather than trusted either way.
    const said = serviceMessage(res) ?? 'no message';
    throw new WalletUnknownOutcomeError(
      `Withdrawal outcome unknown: the wallet service answered HTTP ${res.status} with status ${String(envelopeStatus)} (${said}). The money may have moved: check the transaction list for this merchant reference before doing anything else; do not resend blindly.`,
      { operation: 'withdraw', status: res.status, merchantReference },
    );
  }
  const parsed = withdrawResponseSchema.safeParse(res.body);
  if (!parsed.success) throw withRef(shapeError('withdraw', res, parsed.error), merchantReference);
  return toWithdrawalResult(parsed.data);
}
function withRef(err: WalletError, merchantReference: string): WalletError {
  if (err instanceof WalletUnknownOutcomeError && err.merchantReference === undefined) {
    return new WalletUnknownOutcomeError(err.message, {
      operation: err.operation,
      merchantReference,
      ...(err.status !== undefined ? { status: err.status } : {}),
    });
  }
  return err;
}
