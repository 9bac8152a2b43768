/**
 * The bound every price the app believes is held to, live (judge.ts) or of a past day
 * (day-prices.ts): one number in its own module, so neither imports the other.
 */

/** A price above this (USD per unit) is not a market price. */
export const MAX_PRICE_USD = 1e9;
