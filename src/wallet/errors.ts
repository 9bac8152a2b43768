/**
 * What can go wrong when talking to the wallet service, sorted by what the caller must do
 * about it. The question that matters for money is "may anything have changed?", so every
 * error answers it (`mayHaveChanged`) and says so in its message.
 *
 * Messages are for humans (they end up in Slack): short, no headers, tokens, keys,
 * passwords or request configs. Raw axios errors are never attached as `cause`, because
 * printing one prints its config, Authorization header included.
 */
export type WalletErrorKind = 'validation' | 'rejected' | 'auth' | 'kyb' | 'unknown_outcome' | 'unavailable';

export type WalletOperation =
  | 'login'
  | 'refresh'
  | 'passwordResetOtp'
  | 'passwordReset'
  | 'generateAddress'
  | 'withdraw'
  | 'listTransactions'
  | 'setWebhookUrl'
  | 'withdrawalStatus'
  | 'originBalances';

export const OPERATION_LABELS: Record<WalletOperation, string> = {
  login: 'Wallet service login',
  refresh: 'Wallet session refresh',
  passwordResetOtp: 'Password reset code request',
  passwordReset: 'Password reset',
  generateAddress: 'Address generation',
  withdraw: 'Withdrawal',
  listTransactions: 'Transaction listing',
  setWebhookUrl: 'Webhook registration',
  withdrawalStatus: 'Withdrawal status lookup',
  originBalances: 'Balance lookup',
};

export interface WalletErrorDetails {
  operation: WalletOperation;
  /** HTTP status of the answer that decided the outcome, when there was one. */
  status?: number;
  /** Network error code (ECONNRESET, ECONNREFUSED, ...), when there was one. */
  code?: string;
}

export abstract class WalletError extends Error {
  abstract readonly kind: WalletErrorKind;
  abstract readonly mayHaveChanged: boolean;
  readonly operation: WalletOperation;
  readonly status?: number;
  readonly code?: string;

  constructor(message: string, details: WalletErrorDetails) {
    super(message);
    this.name = new.target.name;
    this.operation = details.operation;
    if (details.status !== undefined) this.status = details.status;
    if (details.code !== undefined) this.code = details.code;
  }
}

/** Our input was refused before sending, or the service's answer did not have the documented shape. */
export class WalletValidationError extends WalletError {
  readonly kind = 'validation' as const;
  readonly mayHaveChanged = false;
  /** 'input': we did not send anything. 'response': the service answered in a shape we do not understand. */
  readonly source: 'input' | 'response';
  constructor(message: string, details: WalletErrorDetails & { source: 'input' | 'response' }) {
    super(message, details);
    this.source = details.source;
  }
}

/** The service answered with a definite refusal (4xx): nothing was done. */
export class WalletRejectedError extends WalletError {
  readonly kind = 'rejected' as const;
  readonly mayHaveChanged = false;
  /** The service's own message, as it sent it (already free of our secrets). */
  readonly serviceMessage: string;
  constructor(message: string, details: WalletErrorDetails & { serviceMessage: string }) {
    super(message, details);
    this.serviceMessage = details.serviceMessage;
  }
}

/** Credentials refused (wrong password, admin account, bad API key, token rejected after re-login). */
export class WalletAuthError extends WalletError {
  readonly kind = 'auth' as const;
  readonly mayHaveChanged = false;
}

/** Login blocked by the merchant's KYB state. */
export class WalletKybError extends WalletError {
  readonly kind = 'kyb' as const;
  readonly mayHaveChanged = false;
  readonly kybStatus: string;
  readonly advice: string;
  constructor(message: string, details: WalletErrorDetails & { kybStatus: string; advice: string }) {
    super(message, details);
    this.kybStatus = details.kybStatus;
    this.advice = details.advice;
  }
}

/**
 * A withdrawal was sent and we do not know what happened (timeout, connection lost after
 * sending, 5xx, unreadable success). The money may have moved: reconcile against the
 * transaction list by merchantReference, never resend blindly.
 */
export class WalletUnknownOutcomeError extends WalletError {
  readonly kind = 'unknown_outcome' as const;
  readonly mayHaveChanged = true;
  readonly merchantReference?: string;
  constructor(message: string, details: WalletErrorDetails & { merchantReference?: string }) {
    super(message, details);
    if (details.merchantReference !== undefined) this.merchantReference = details.merchantReference;
  }
}

/** The service could not be reached or kept failing; nothing was changed (or the call is safe to repeat). */
export class WalletUnavailableError extends WalletError {
  readonly kind = 'unavailable' as const;
  readonly mayHaveChanged = false;
  readonly reason: 'timeout' | 'network' | 'server';
  readonly attempts: number;
  constructor(
    message: string,
    details: WalletErrorDetails & { reason: 'timeout' | 'network' | 'server'; attempts: number },
  ) {
    super(message, details);
    this.reason = details.reason;
    this.attempts = details.attempts;
  }
}

export function isWalletError(err: unknown): err is WalletError {
  return err instanceof WalletError;
}
