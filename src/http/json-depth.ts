/**
 * How deeply a JSON text nests, measured before it is parsed. Parsers, normalizers and the
 * store all recurse over values; a body nested a few thousand levels deep overflows the
 * stack in one of them (a 500) long before any size limit is reached. One linear pass over
 * the text, strings skipped, stops as soon as the limit is passed.
 */

/** Deeper than any real webhook body (the wallet service's nest three or four levels). */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJ = 0x7b; // {
const OPEN_ARR = 0x5b; // [
const CLOSE_OBJ = 0x7d; // }
const CLOSE_ARR = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/** True when the text opens more than `max` nested objects/arrays at some point (malformed text is left to the parser). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJ || c === OPEN_ARR) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJ || c === CLOSE_ARR) depth--;
  }
  return false;
}
