/**
 * The origin accounts' balances, as facts for the `balance` rule (src/balances/book.ts
 * implements it). `read` asks the wallet service now; `last` is the last reading, for renderers.
 */
export interface BalanceSource {
  /** Exact decimal text, or undefined when it cannot be read (never throws). */
  read(currency: string, network: string): Promise<string | undefined>;
  last(currency: string, network: string): string | undefined;
}
