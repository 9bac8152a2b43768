// @ts-check
// Slack's mrkdwn and text objects, rendered as DOM nodes: formatting, mentions, links, emoji.

import { h } from './dom.js';
import { channelName, personName } from './state.js';

/** @typedef {import('./dom.js').Leaf} Leaf */
/** @typedef {import('./types.js').TextObject} TextObject */

/** @type {Record<string, string>} */
const EMOJI = {
  warning: '⚠️',
  white_check_mark: '✅',
  x: '❌',
  no_entry: '⛔',
  rotating_light: '🚨',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  grey_question: '❔',
  inbox_tray: '📥',
  outbox_tray: '📤',
  red_circle: '🔴',
  large_green_circle: '🟢',
  white_circle: '⚪',
  lock: '🔒',
  information_source: 'ℹ️',
  arrows_counterclockwise: '🔄',
  alarm_clock: '⏰',
  moneybag: '💰',
  bank: '🏦',
  key: '🔑',
  tada: '🎉',
  eyes: '👀',
  heavy_check_mark: '✔️',
  memo: '📝',
  link: '🔗',
  clipboard: '📋',
  bell: '🔔',
  chart_with_upwards_trend: '📈',
  thumbsup: '👍',
  '+1': '👍',
  fire: '🔥',
  calendar: '📅',
};

/** @param {string} t */
function decode(t) {
  return t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** @param {string} t */
export function emojify(t) {
  return decode(t).replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] ?? m);
}

// Slack's formatting marks only count at word edges (snake_case stays as is).
const INLINE =
  /<([^<>|]+)(?:\|([^<>]+))?>|`([^`\n]+)`|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])|(?<![\w~])~([^~\n]+)~(?![\w~])/g;

/**
 * @param {string} text
 * @returns {Leaf[]}
 */
function inline(text) {
  /** @type {Leaf[]} */
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(emojify(text.slice(last, m.index)));
    if (m[1] !== undefined) out.push(special(m[1], m[2]));
    else if (m[3] !== undefined) out.push(h('code', {}, decode(m[3])));
    else if (m[4] !== undefined) out.push(h('b', {}, inline(m[4])));
    else if (m[5] !== undefined) out.push(h('i', {}, inline(m[5])));
    else if (m[6] !== undefined) out.push(h('s', {}, inline(m[6])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(emojify(text.slice(last)));
  return out;
}

/**
 * `<…>`: a mention, a date, or a link.
 * @param {string} target
 * @param {string | undefined} label
 * @returns {Leaf}
 */
function special(target, label) {
  if (target.startsWith('@')) return h('span', { class: 'mention' }, `@${personName(target.slice(1))}`);
  if (target.startsWith('#')) return h('span', { class: 'mention' }, `#${label ?? channelName(target.slice(1))}`);
  if (target.startsWith('!subteam^')) return h('span', { class: 'mention' }, label ?? '@group');
  if (target.startsWith('!date^')) return decode(label ?? '');
  if (target.startsWith('!')) return h('span', { class: 'mention' }, `@${target.slice(1)}`);
  const url = decode(target);
  // Only web and mail links are clickable; anything else (javascript:, data:) stays text.
  if (!/^(https?:|mailto:)/i.test(url)) return decode(label ?? target);
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, label ? inline(label) : url);
}

/**
 * @param {unknown} text
 * @returns {DocumentFragment}
 */
export function mrkdwn(text) {
  const parts = String(text ?? '').split('```');
  const frag = document.createDocumentFragment();
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      frag.append(h('pre', {}, decode(part)));
      return;
    }
    part.split('\n').forEach((line, j) => {
      if (j > 0) frag.append(h('br'));
      const quote = line.startsWith('&gt; ') || line.startsWith('> ');
      const body = quote ? line.replace(/^(&gt;|>) /, '') : line;
      const nodes = inline(body);
      frag.append(quote ? h('q', {}, nodes) : h('span', {}, nodes));
    });
  });
  return frag;
}

/**
 * @param {TextObject | undefined} t
 * @returns {Leaf}
 */
export function textObj(t) {
  if (!t) return '';
  return t.type === 'mrkdwn' ? mrkdwn(t.text) : emojify(t.text ?? '');
}
