/**
 * Typed names for the store's collections. A handle is the persisted collection name itself
 * (a plain string at run time, so names on disk are exactly what they were) carrying the type
 * of its records for the compiler only: `tx.get(REQUESTS, id)` is a `WithdrawalRequest | undefined`
 * with no cast and no type argument. The store takes nothing else, so a record's type is
 * declared once, beside its domain types, and every reader and writer agrees with it.
 */

declare const recordType: unique symbol;
declare const recordTypes: unique symbol;

/** A collection whose records all have type T. */
export type Collection<T> = string & { readonly [recordType]: T };

/**
 * A collection of a few fixed ids, each holding its own shape (settings): M maps id to type,
 * so `tx.get(SETTINGS, 'webhookSecret')` is typed by the id.
 */
export type Singletons<M> = string & { readonly [recordTypes]: M };

/** Declares a collection; `name` is what is persisted, so it must never change. */
export function collection<T>(name: string): Collection<T> {
  return name as Collection<T>;
}

/** Declares a collection of singletons (see Singletons); `name` is persisted. */
export function singletons<M extends object>(name: string): Singletons<M> {
  return name as Singletons<M>;
}

/** Any handle, for operations that do not read records (count, delete). */
export type AnyCollection = Collection<unknown> | Singletons<unknown>;
