/**
 * The emoji short codes the page renders (`:warning:` → ⚠️), from iamcal's emoji-datasource:
 * the table Slack itself uses. Made once from the package's emoji.json, on the first request,
 * into the compact map the page needs: every short name (aliases included, `+1` and `thumbsup`)
 * to its unified code points, and which of them take a skin tone (`:+1::skin-tone-3:`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';

/** What the page receives: short name → code points ("26A0-FE0F"), and the toned names. */
export interface EmojiTable {
  names: Record<string, string>;
  skinTones: string[];
}

const codePoints = z.string().regex(/^[0-9A-F]{4,6}(-[0-9A-F]{4,6})*$/);
const entry = z.object({
  unified: codePoints,
  short_names: z.array(z.string().min(1).max(100)),
  skin_variations: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The page's table from emoji.json's entries. An entry of a shape we do not know is left
 * out (its code stays text on the page), never a reason to serve no emoji at all.
 */
export function emojiTable(raw: unknown): EmojiTable {
  const names: Record<string, string> = Object.create(null);
  const skinTones: string[] = [];
  for (const item of Array.isArray(raw) ? raw : []) {
    const r = entry.safeParse(item);
    if (!r.success) continue;
    for (const name of r.data.short_names) {
      // The first entry to claim a name keeps it, as in Slack's own picker.
      if (name in names) continue;
      names[name] = r.data.unified;
      if (r.data.skin_variations) skinTones.push(name);
    }
  }
  return { names: { ...names }, skinTones };
}

let cached: EmojiTable | undefined;

/** The table from the installed emoji-datasource (read once, then kept). */
export function installedEmojiTable(): EmojiTable {
  if (!cached) {
    const file = createRequire(import.meta.url).resolve('emoji-datasource/emoji.json');
    cached = emojiTable(JSON.parse(readFileSync(file, 'utf8')));
  }
  return cached;
}
