/**
 * Links the wallet service hands us (a transaction's explorer page, an address page) are
 * shown in Slack messages, inside `<url|text>`. They are taken only when they are plain
 * http(s) URLs of a sensible length: anything else (another scheme, characters that would
 * break out of Slack's link syntax, a URL long enough to push a full batch message past
 * Slack's limits) is dropped, and the message falls back to our own explorer link.
 */
import { z } from 'zod';

/** Longest wallet-supplied URL we show; explorer links are well under 100 characters. */
export const WALLET_URL_MAX = 200;

const walletUrl = z
  .string()
  .trim()
  .max(WALLET_URL_MAX)
  // `<`, `>` and `|` end a Slack link; whitespace has no place in a URL.
  .regex(/^https?:\/\/[^\s<>|]+$/i)
  .refine((s) => URL.canParse(s));

/** The URL if it may be shown, else undefined (the renderer then uses our explorer link). */
export function walletLink(url: string | null | undefined): string | undefined {
  const r = walletUrl.safeParse(url);
  return r.success ? r.data : undefined;
}
