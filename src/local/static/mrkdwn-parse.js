// @ts-check
// Slack's mrkdwn, parsed into plain objects as Slack's clients read it: ```preformatted```,
// > quotes (and >>> for the rest), • / - bulleted lines, *bold*, _italics_, ~strike~, `code`,
// <links|labels>, <@U…> and <#C…> mentions, <!date^…> tokens, :emoji: short codes and the
// &amp; &lt; &gt; escapes. Pure (no DOM, no page state), so node's tests import it as is;
// mrkdwn.js turns the result into DOM nodes. Declared for those tests in mrkdwn-parse.d.ts.

/** @typedef {import('./types.js').MrkdwnInline} MrkdwnInline */
/** @typedef {import('./types.js').MrkdwnBlock} MrkdwnBlock */
/** @typedef {import('./types.js').MrkdwnContext} MrkdwnContext */
/** @typedef {import('./types.js').DateContext} DateContext */
/** @typedef {import('./types.js').EmojiTable} EmojiTable */
/** @typedef {import('./types.js').EmojiLookup} EmojiLookup */

/** @param {string} t */
export function decode(t) {
  return t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** @param {EmojiTable} table @returns {EmojiLookup} */
export function emojiLookup(table) {
  return { names: table.names, toned: new Set(table.skinTones) };
}

/** Fitzpatrick modifiers, by Slack's `:skin-tone-2:` … `:skin-tone-6:`. */
const TONES = ['1F3FB', '1F3FC', '1F3FD', '1F3FE', '1F3FF'];

/**
 * The characters of a short name (with a skin tone 2–6 if it takes one), or undefined if the
 * table does not know it. A tone goes after the first code point, in place of its FE0F
 * presentation selector: the rule every single-tone variation in emoji-datasource follows.
 * @param {EmojiLookup} emoji
 * @param {string} name
 * @param {number} [tone]
 * @returns {string | undefined}
 */
export function emojiChars(emoji, name, tone) {
  if (!Object.hasOwn(emoji.names, name)) return undefined;
  const cps = String(emoji.names[name]).split('-');
  const toneCp = tone && emoji.toned.has(name) ? TONES[tone - 2] : undefined;
  if (toneCp) {
    const rest = cps.slice(1);
    if (rest[0] === 'FE0F') rest.shift();
    cps.splice(0, cps.length, /** @type {string} */ (cps[0]), toneCp, ...rest);
  }
  const points = cps.map((c) => Number.parseInt(c, 16));
  if (points.some((p) => !Number.isInteger(p) || p < 0 || p > 0x10ffff)) return undefined;
  return String.fromCodePoint(...points);
}

const EMOJI = /:([a-z0-9_+-]+):/g;
const TONE = /^:skin-tone-([2-6]):/;

/**
 * Text with its escapes decoded and its known short codes as emoji; an unknown code stays text
 * (and "10:00:warning:" still finds :warning:, since a miss moves on by one character).
 * @param {string} raw
 * @param {EmojiLookup} emoji
 * @returns {MrkdwnInline[]}
 */
export function textWithEmoji(raw, emoji) {
  const t = decode(raw);
  /** @type {MrkdwnInline[]} */
  const out = [];
  let last = 0;
  EMOJI.lastIndex = 0;
  for (let m = EMOJI.exec(t); m; m = EMOJI.exec(t)) {
    const name = /** @type {string} */ (m[1]);
    const toned = emoji.toned.has(name) ? TONE.exec(t.slice(m.index + m[0].length)) : null;
    const chars = emojiChars(emoji, name, toned ? Number(toned[1]) : undefined);
    if (chars === undefined) {
      EMOJI.lastIndex = m.index + 1;
      continue;
    }
    if (m.index > last) out.push({ type: 'text', text: t.slice(last, m.index) });
    out.push({ type: 'emoji', name, chars });
    last = m.index + m[0].length + (toned ? toned[0].length : 0);
    EMOJI.lastIndex = last;
  }
  if (last < t.length) out.push({ type: 'text', text: t.slice(last) });
  return out;
}

// A formatting mark counts only at a word's edge (snake_case and 2*3*4 stay as they are), its
// text neither starts nor ends with a space, and a <…> token inside it is taken whole.
/** @param {string} mark */
const marked = (mark) => {
  // Only `*` needs escaping (and in a `u` expression, escaping `_` or `~` is an error).
  const m = mark === '*' ? '\\*' : mark;
  return `(?<![\\p{L}\\p{N}_${m}])${m}(?!\\s)((?:<[^<>\\n]*>|[^${m}\\n<])+?)(?<!\\s)${m}(?![\\p{L}\\p{N}_${m}])`;
};
const INLINE = new RegExp(`<([^<>\\n]+)>|\`([^\`\\n]+)\`|${marked('*')}|${marked('_')}|${marked('~')}`, 'gu');
const SPECIAL = /<([^<>\n]+)>/g;

/**
 * One line (or a link's label) of mrkdwn.
 * @param {string} text
 * @param {MrkdwnContext} ctx
 * @returns {MrkdwnInline[]}
 */
export function parseInline(text, ctx) {
  /** @type {MrkdwnInline[]} */
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(...textWithEmoji(text.slice(last, m.index), ctx.emoji));
    if (m[1] !== undefined) out.push(special(m[1], ctx));
    else if (m[2] !== undefined) out.push({ type: 'code', children: verbatim(m[2], ctx) });
    else if (m[3] !== undefined) out.push({ type: 'bold', children: parseInline(m[3], ctx) });
    else if (m[4] !== undefined) out.push({ type: 'italic', children: parseInline(m[4], ctx) });
    else if (m[5] !== undefined) out.push({ type: 'strike', children: parseInline(m[5], ctx) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(...textWithEmoji(text.slice(last), ctx.emoji));
  return out;
}

/**
 * Code: no formatting and no emoji, but links and mentions are still tokens (as in Slack).
 * @param {string} text
 * @param {MrkdwnContext} ctx
 * @returns {MrkdwnInline[]}
 */
function verbatim(text, ctx) {
  /** @type {MrkdwnInline[]} */
  const out = [];
  let last = 0;
  for (const m of text.matchAll(SPECIAL)) {
    if (m.index > last) out.push({ type: 'text', text: decode(text.slice(last, m.index)) });
    out.push(special(/** @type {string} */ (m[1]), ctx));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ type: 'text', text: decode(text.slice(last)) });
  return out;
}

/** @param {string} url */
const webLink = (url) => /^(https?:|mailto:)/i.test(url);

/**
 * `<…>`: a mention, a broadcast, a date, or a link. Only web and mail links become links;
 * anything else (javascript:, data:) stays text.
 * @param {string} token
 * @param {MrkdwnContext} ctx
 * @returns {MrkdwnInline}
 */
function special(token, ctx) {
  const bar = token.indexOf('|');
  const target = bar < 0 ? token : token.slice(0, bar);
  const label = bar < 0 ? null : decode(token.slice(bar + 1));
  if (target.startsWith('@')) return { type: 'user', id: target.slice(1), label };
  if (target.startsWith('#')) return { type: 'channel', id: target.slice(1), label };
  if (target.startsWith('!subteam^')) return { type: 'group', id: target.slice(9), label };
  if (target.startsWith('!date^')) {
    const [, ts, format = '', link] = target.split('^');
    const text = formatSlackDate(Number(ts), decode(format), ctx.date);
    const url = link && webLink(decode(link)) ? decode(link) : null;
    return { type: 'date', text: text ?? label ?? '', url };
  }
  if (/^!(here|channel|everyone)$/.test(target)) return { type: 'broadcast', name: target.slice(1) };
  if (target.startsWith('!')) return { type: 'text', text: label ?? target.slice(1) };
  const url = decode(target);
  if (!webLink(url)) return { type: 'text', text: label ?? url };
  return { type: 'link', url, label: label === null ? null : parseInline(token.slice(bar + 1), ctx) };
}

/** @param {number} n */
function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * The reader's calendar day of a moment: its parts in their time zone, and a day number to
 * compare days by.
 * @param {Date} d
 * @param {string | undefined} timeZone
 */
function dayOf(d, timeZone) {
  /** @type {Record<string, string>} */
  const p = {};
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    weekday: 'long',
  }).formatToParts(d);
  for (const x of parts) p[x.type] = x.value;
  const month = new Intl.DateTimeFormat('en-US', { timeZone, month: 'numeric' }).format(d);
  const y = Number(p.year);
  const m = Number(month);
  const day = Number(p.day);
  return {
    year: y,
    month: Number(month),
    monthName: p.month ?? '',
    day,
    weekday: p.weekday ?? '',
    index: Math.round(Date.UTC(y, m - 1, day) / 86_400_000),
  };
}

const RELATIVE = /** @type {const} */ ([
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
]);

/**
 * Slack's `<!date^seconds^format…>` in the reader's zone: {date_num} 2014-02-18, {date}
 * February 18th, 2014, {date_short} Feb 18, 2014, {date_long} Tuesday, February 18th, 2014,
 * their `_pretty` forms (today, yesterday, tomorrow), {time}, {time_secs} and {ago}.
 * Undefined when the time is not one (the token's fallback text is shown instead).
 * @param {number} seconds
 * @param {string} format
 * @param {DateContext} ctx
 * @returns {string | undefined}
 */
export function formatSlackDate(seconds, format, ctx) {
  if (!Number.isFinite(seconds) || Math.abs(seconds) > 8.64e12) return undefined;
  const d = new Date(seconds * 1000);
  const { timeZone, locale } = ctx;
  const day = dayOf(d, timeZone);
  const date = `${day.monthName} ${ordinal(day.day)}, ${day.year}`;
  const short = `${day.monthName.slice(0, 3)} ${day.day}, ${day.year}`;
  const long = `${day.weekday}, ${date}`;
  /** @param {string} otherwise */
  const pretty = (otherwise) => {
    const diff = day.index - dayOf(new Date(ctx.now), timeZone).index;
    return diff === 0 ? 'today' : diff === -1 ? 'yesterday' : diff === 1 ? 'tomorrow' : otherwise;
  };
  /** @param {boolean} secs */
  const time = (secs) =>
    new Intl.DateTimeFormat(locale, {
      timeZone,
      hour: 'numeric',
      minute: '2-digit',
      second: secs ? '2-digit' : undefined,
    }).format(d);
  const ago = () => {
    const diff = seconds - ctx.now / 1000;
    const [unit, size] = RELATIVE.find(([, s]) => Math.abs(diff) >= s) ?? ['second', 1];
    return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(Math.round(diff / size), unit);
  };
  /** @type {Record<string, () => string>} */
  const tokens = {
    date_num: () => `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`,
    date: () => date,
    date_short: () => short,
    date_long: () => long,
    date_pretty: () => pretty(date),
    date_short_pretty: () => pretty(short),
    date_long_pretty: () => pretty(long),
    time: () => time(false),
    time_secs: () => time(true),
    ago,
  };
  return format.replace(/\{(\w+)\}/g, (m, name) => (Object.hasOwn(tokens, name) ? tokens[name]?.() : m) ?? m);
}

const QUOTE = /^(?:&gt;|>) ?/;
const QUOTE_REST = /^(?:&gt;&gt;&gt;|>>>) ?/;
const BULLET = /^[ \t]*[•◦▪-][ \t]+/;

/**
 * The lines between two fences, grouped into plain lines, quotes and bulleted lists.
 * @param {string} part
 * @param {MrkdwnContext} ctx
 * @param {MrkdwnBlock[]} out
 */
function proseBlocks(part, ctx, out) {
  const lines = part.split('\n');
  /** @param {'lines' | 'quote' | 'list'} type @param {MrkdwnInline[]} line */
  const add = (type, line) => {
    const prev = out[out.length - 1];
    if (prev && prev.type === type) {
      if (prev.type === 'list') prev.items.push(line);
      else if (prev.type !== 'pre') prev.lines.push(line);
      return;
    }
    out.push(type === 'list' ? { type, items: [line] } : { type, lines: [line] });
  };
  let rest = false;
  for (const line of lines) {
    if (!rest && QUOTE_REST.test(line)) {
      rest = true;
      add('quote', parseInline(line.replace(QUOTE_REST, ''), ctx));
    } else if (rest) add('quote', parseInline(line, ctx));
    else if (QUOTE.test(line)) add('quote', parseInline(line.replace(QUOTE, ''), ctx));
    else if (BULLET.test(line)) add('list', parseInline(line.replace(BULLET, ''), ctx));
    else add('lines', parseInline(line, ctx));
  }
}

/**
 * A whole mrkdwn text. ``` fences alternate prose and preformatted text (an unclosed fence
 * stays text); the newline beside a fence belongs to it, as in Slack.
 * @param {unknown} text
 * @param {MrkdwnContext} ctx
 * @returns {MrkdwnBlock[]}
 */
export function parseMrkdwn(text, ctx) {
  const parts = String(text ?? '').split('```');
  if (parts.length % 2 === 0) {
    const tail = parts.pop();
    parts[parts.length - 1] += `\`\`\`${tail}`;
  }
  /** @type {MrkdwnBlock[]} */
  const out = [];
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      out.push({ type: 'pre', children: verbatim(part.replace(/^\n/, '').replace(/\n$/, ''), ctx) });
      return;
    }
    let prose = part;
    if (i > 0) prose = prose.replace(/^\n/, '');
    if (i < parts.length - 1) prose = prose.replace(/\n$/, '');
    if (prose === '' && parts.length > 1) return;
    proseBlocks(prose, ctx, out);
  });
  return out;
}
