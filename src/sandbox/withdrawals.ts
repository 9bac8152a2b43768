/**
 * `POST /api/merchantClientWithdrawal?api-version=1`.
 *
 * Strict on what the spec fixes: `Authorization: ApiKey`, Content-Type media type
 * `application/json-patch+json` with `ver=1.0` (parameter spacing, quoting and case are
 * free; anything else is 415), `api-version` if present must be 1, an Accept header if
 * present must admit text/plain or JSON (else 406). The amount must be a JSON number; the
 * body is parsed losslessly so its digits are exactly what the client wrote.
 *
 * Fee: a flat amount per currency (money.ts), charged in the same currency on top of the
 * amount: the client's balance must cover amount + fee.
 */
import { randomUUID } from 'node:crypto';
import { isLosslessNumber } from 'lossless-json';
import { addressFamily, describeFormat, isValidAddress } from '../wallet/addresses.js';
import { CURRENCIES, NETWORKS, lookup, type CurrencyMember, type EnumMember } from '../wallet/enums.js';
import { jsonDecimal } from '../wallet/json.js';
import { v1Fail, v1Ok, type Reply } from './envelopes.js';
import { header, jsonObject, missingFields, parseMediaType, plain } from './body.js';
import { requireApiKey, type AuthDeps } from './auth.js';
import type { SandboxRequest } from './http.js';
import { Money, formatMoney, parseMoney, withdrawalFee } from './money.js';
import { addressUrl, txHash, txUrl } from './chain.js';
import { createdAtText, type TransactionRecord } from './state.js';
import { NOT_VERIFIED, verifyWithMerchant, type VerificationUrl } from './verification.js';

export interface WithdrawalDeps extends AuthDeps {
  /** Called once the withdrawal is committed (webhooks). */
  onCommitted(tx: TransactionRecord): void;
  /**
   * The merchant's verification URL (the dashboard's `verificationUrl`): asked before each
   * withdrawal is executed; undefined (or a function answering undefined): not asked.
   */
  verificationUrl?: VerificationUrl;
  /** How long the merchant has to answer the verification call, default 5000 ms. */
  verificationTimeoutMs?: number;
  /** The verification call also carries the withdrawal's fields as posted (types.ts `verificationFields`). */
  verificationFields?: boolean;
  /** Told of each verification call's outcome (the sandbox's stats). */
  onVerified?(v: { reference: string; verified: boolean; why?: string }): void;
}

const REQUIRED = [
  'amount',
  'currency',
  'destinationAddress',
  'merchantClientEmailAddress',
  'networkChain',
  'merchantReference',
  'publicKey',
] as const;

function checkHeaders(req: SandboxRequest): Reply | undefined {
  const ct = parseMediaType(header(req, 'content-type') ?? '');
  if (ct.type !== 'application/json-patch+json' || (ct.params.ver !== '1.0' && ct.params.ver !== '1')) {
    return v1Fail('Unsupported media type', 'Content-Type must be application/json-patch+json; ver=1.0', 415);
  }
  const version = req.query.get('api-version');
  if (version !== null && version.trim() !== '1' && version.trim() !== '1.0') {
    return v1Fail('Unsupported api-version', `api-version ${version} is not supported; use api-version=1`);
  }
  const accept = header(req, 'accept');
  if (accept !== undefined && accept.trim() !== '') {
    const acceptable = accept
      .split(',')
      .map((part) => parseMediaType(part).type)
      .some((t) => ['text/plain', 'text/*', '*/*', 'application/json', 'application/*'].includes(t));
    if (!acceptable) return v1Fail('Not acceptable', 'Accept must admit text/plain; ver=1.0', 406);
  }
  return undefined;
}

/** The spec's Accept is text/plain; the body is JSON either way, labelled as the client asked. */
function contentTypeFor(req: SandboxRequest): string {
  const accept = header(req, 'accept') ?? '';
  return /text\/plain/i.test(accept) ? 'text/plain; ver=1.0; charset=utf-8' : 'application/json; charset=utf-8';
}

export async function withdraw(deps: WithdrawalDeps, req: SandboxRequest): Promise<Reply> {
  const auth = requireApiKey(deps, req);
  if (!auth.ok) return auth.reply;
  const bad = checkHeaders(req);
  if (bad) return bad;
  const reply = await execute(deps, req, auth.merchant);
  return { ...reply, headers: { 'content-type': contentTypeFor(req), ...reply.headers } };
}

/**
 * Validates, asks the merchant's verification URL (when configured), then validates again and
 * commits: the world may have changed while the merchant answered (the same reference used by
 * a concurrent call, the balance spent), and a refused withdrawal changes nothing.
 */
async function execute(
  deps: WithdrawalDeps,
  req: SandboxRequest,
  merchant: { email: string; publicKey: string; apiKey: string },
): Promise<Reply> {
  const first = check(deps, req, merchant.email, merchant.publicKey);
  if ('status' in first) return first;
  const verified = await verifyWithMerchant({
    url: deps.verificationUrl,
    secretKey: merchant.apiKey,
    reference: first.reference,
    destination: first.destination,
    timeoutMs: deps.verificationTimeoutMs ?? 5000,
    ...(deps.verificationFields ? { fields: first.posted } : {}),
  });
  if (verified)
    deps.onVerified?.({
      reference: first.reference,
      verified: verified.ok,
      ...(verified.ok ? {} : { why: verified.why }),
    });
  if (verified && !verified.ok) {
    deps.log.warn({ reference: first.reference, why: verified.why }, 'sandbox withdrawal refused: not verified');
    return v1Fail(NOT_VERIFIED, `${NOT_VERIFIED}: ${verified.why}`);
  }
  const again = check(deps, req, merchant.email, merchant.publicKey);
  if ('status' in again) return again;
  return commit(deps, again);
}

interface Plan {
  merchantEmail: string;
  clientEmail: string;
  currency: CurrencyMember;
  network: EnumMember;
  amount: Money;
  fee: Money;
  balance: Money;
  destination: string;
  reference: string;
  description: string | null;
  /** The withdrawal's fields as posted (enums as codes or names, the amount's digits as written). */
  posted: Record<string, string>;
}

function check(deps: WithdrawalDeps, req: SandboxRequest, merchantEmail: string, publicKey: string): Reply | Plan {
  const parsed = jsonObject(req);
  if (!parsed.ok) return v1Fail('Invalid request', parsed.message);
  const body = parsed.value;
  const missing = missingFields(body, REQUIRED);
  if (missing.length) return v1Fail('Invalid request', `Missing required field(s): ${missing.join(', ')}`);

  const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string).trim() : undefined);
  for (const k of ['destinationAddress', 'merchantClientEmailAddress', 'merchantReference', 'publicKey']) {
    if (str(k) === undefined || str(k) === '') return v1Fail('Invalid request', `${k} must be a non-empty string`);
  }
  if (str('publicKey') !== publicKey) return v1Fail('Invalid public key', 'publicKey does not belong to this merchant');

  const currency = lookup(CURRENCIES, plain(body.currency));
  if (!currency) return v1Fail('Invalid currency', `Unknown currency ${JSON.stringify(plain(body.currency))}`);
  const network = lookup(NETWORKS, plain(body.networkChain));
  if (!network)
    return v1Fail('Invalid network chain', `Unknown networkChain ${JSON.stringify(plain(body.networkChain))}`);

  if (!isLosslessNumber(body.amount)) return v1Fail('Invalid amount', 'amount must be a JSON number');
  const amount = parseMoney(body.amount.toString());
  if (!amount || amount.lte(0)) return v1Fail('Invalid amount', 'amount must be greater than zero');
  if (amount.decimalPlaces() > currency.decimals) {
    return v1Fail('Invalid amount', `${currency.name} amounts have at most ${currency.decimals} decimal places`);
  }

  const destination = str('destinationAddress')!;
  const family = addressFamily(network);
  if (!isValidAddress(family, destination)) {
    return v1Fail(
      'Invalid destination address',
      `destinationAddress is not valid for ${currency.name} on ${network.name}: expected ${describeFormat(family)}`,
    );
  }

  const clientEmail = str('merchantClientEmailAddress')!;
  const client = deps.state.client(merchantEmail, clientEmail);
  if (!client || !deps.state.hasGeneratedAddress(merchantEmail, clientEmail)) {
    return v1Fail('Unknown merchant client', `No wallet address was generated for client ${clientEmail}`);
  }

  const reference = str('merchantReference')!;
  if (deps.state.referenceUsed(merchantEmail, reference)) {
    return v1Fail('Duplicate merchant reference', `merchantReference ${reference} has already been used`);
  }

  const fee = new Money(withdrawalFee(currency));
  const balance = deps.state.balance(merchantEmail, clientEmail, currency, network);
  if (amount.plus(fee).gt(balance)) {
    return v1Fail(
      'Insufficient balance',
      `Balance ${formatMoney(balance)} ${currency.name} on ${network.name} does not cover ${formatMoney(amount)} + fee ${formatMoney(fee)}`,
    );
  }

  const description = str('paymentDescription') ?? str('description') ?? null;
  return {
    merchantEmail,
    clientEmail: client.email,
    currency,
    network,
    amount,
    fee,
    balance,
    destination,
    reference,
    description,
    posted: {
      amount: body.amount.toString(),
      currency: String(plain(body.currency)),
      networkChain: String(plain(body.networkChain)),
      destinationAddress: destination,
    },
  };
}

function commit(deps: WithdrawalDeps, p: Plan): Reply {
  const { merchantEmail, currency, network, amount, fee, balance, destination, reference, description } = p;
  const clientEmail = p.clientEmail;
  const family = addressFamily(network);
  const from = deps.state.ensureAddress(merchantEmail, clientEmail, currency, network);
  deps.state.setBalance(merchantEmail, clientEmail, currency, network, balance.minus(amount).minus(fee));
  const id = deps.state.nextTxId();
  const hash = txHash(family, `${merchantEmail}:${id}:${reference}`);
  const ts = deps.now();
  const tx = deps.state.addTransaction({
    id,
    merchantEmail,
    clientEmail,
    transactionStatus: 'SUCCESSFUL',
    transactionType: 'Withdrawal',
    transactionHash: hash,
    transactionHashUrl: txUrl(currency, network, hash),
    toAddress: destination,
    fromAddress: from,
    toAddressUrl: addressUrl(currency, network, destination),
    fromAddressUrl: addressUrl(currency, network, from),
    amount: formatMoney(amount),
    charge: formatMoney(fee),
    network: network.name,
    currency: currency.name,
    transactionTimeStamp: ts,
    reference,
    createdAt: createdAtText(ts),
  });
  deps.onCommitted(tx);
  deps.log.info(
    { reference, currency: currency.name, network: network.name, amount: tx.amount },
    'sandbox withdrawal committed',
  );

  return v1Ok(
    {
      destinationAddress: destination,
      paymentCurrency: currency.code,
      networkChain: network.code,
      withdrawnAmount: jsonDecimal(formatMoney(amount)),
      transactionCharge: jsonDecimal(formatMoney(fee)),
      withdrawnAmountRequested: jsonDecimal(formatMoney(amount)),
      paymentDescription: description,
      merchantTransactionReference: reference,
      switchWalletTransactionReference: `SWT-${randomUUID()}`,
      transactionChargeCurrency: currency.code,
    },
    'Withdrawal request successful',
  );
}
