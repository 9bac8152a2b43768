// Declarations of mrkdwn-parse.js for node's unit tests (test/local/mrkdwn-parse.test.ts), which
// the app's own tsc checks without JavaScript; the page's check reads the module itself.
import type { DateContext, EmojiLookup, EmojiTable, MrkdwnBlock, MrkdwnContext, MrkdwnInline } from './types.js';

export type { DateContext, EmojiLookup, EmojiTable, MrkdwnBlock, MrkdwnContext, MrkdwnInline };
export function decode(t: string): string;
export function emojiLookup(table: EmojiTable): EmojiLookup;
export function emojiChars(emoji: EmojiLookup, name: string, tone?: number): string | undefined;
export function textWithEmoji(raw: string, emoji: EmojiLookup): MrkdwnInline[];
export function parseInline(text: string, ctx: MrkdwnContext): MrkdwnInline[];
export function formatSlackDate(seconds: number, format: string, ctx: DateContext): string | undefined;
export function parseMrkdwn(text: unknown, ctx: MrkdwnContext): MrkdwnBlock[];
