// @ts-check
// Slack's mrkdwn and text objects as DOM nodes: mrkdwn-parse.js reads the text, this builds
// the nodes (text is always a text node, never markup) with the page's names for people and
// channels, the emoji table the server serves from emoji-datasource, and the reader's clock.

import { h } from './dom.js';
import { emojiLookup, parseMrkdwn, textWithEmoji } from './mrkdwn-parse.js';
import { linkAttrs } from './permalink.js';
import { channelName, personName } from './state.js';

/** @typedef {import('./dom.js').Leaf} Leaf */
/** @typedef {import('./types.js').TextObject} TextObject */
/** @typedef {import('./types.js').MrkdwnInline} MrkdwnInline */
/** @typedef {import('./types.js').MrkdwnBlock} MrkdwnBlock */
/** @typedef {import('./types.js').MrkdwnContext} MrkdwnContext */
/** @typedef {import('./types.js').EmojiTable} EmojiTable */

/** Until the table arrives (or if it cannot), short codes stay as text. */
let emoji = emojiLookup({ names: {}, skinTones: [] });

/** Fetches Slack's short-code table (GET /local/emoji.json); true once it is in use. */
export async function loadEmoji() {
  const res = await fetch('/local/emoji.json');
  if (!res.ok) return false;
  const table = /** @type {EmojiTable} */ (await res.json());
  if (!table || typeof table.names !== 'object' || !Array.isArray(table.skinTones)) return false;
  emoji = emojiLookup(table);
  return true;
}

/** @returns {MrkdwnContext} */
const context = () => ({ emoji, date: { now: Date.now() } });

/**
 * @param {MrkdwnInline} n
 * @returns {Leaf}
 */
function inlineNode(n) {
  switch (n.type) {
    case 'text':
      return n.text;
    case 'bold':
      return h('b', {}, n.children.map(inlineNode));
    case 'italic':
      return h('i', {}, n.children.map(inlineNode));
    case 'strike':
      return h('s', {}, n.children.map(inlineNode));
    case 'code':
      return h('code', {}, n.children.map(inlineNode));
    case 'link':
      return h('a', linkAttrs(n.url), n.label?.map(inlineNode) ?? n.url);
    case 'user': {
      const name = personName(n.id);
      return h('span', { class: 'mention' }, `@${name !== n.id ? name : (n.label ?? n.id)}`);
    }
    case 'channel':
      return h('span', { class: 'mention' }, `#${n.label ?? channelName(n.id)}`);
    case 'group':
      return h('span', { class: 'mention' }, n.label ?? '@group');
    case 'broadcast':
      return h('span', { class: 'mention' }, `@${n.name}`);
    case 'date':
      return n.url
        ? h('a', { href: n.url, target: '_blank', rel: 'noopener noreferrer' }, h('time', {}, n.text))
        : h('time', {}, n.text);
    case 'emoji':
      return h('span', { class: 'emoji', title: `:${n.name}:` }, n.chars);
  }
}

/**
 * Lines joined by line breaks.
 * @param {MrkdwnInline[][]} lines
 * @returns {Leaf[]}
 */
function joined(lines) {
  return lines.flatMap((line, i) => [i > 0 ? h('br') : null, h('span', {}, line.map(inlineNode))]);
}

/**
 * @param {MrkdwnBlock} b
 * @returns {Leaf}
 */
function blockNode(b) {
  switch (b.type) {
    case 'lines':
      return h('span', { class: 'mrkdwn-lines' }, joined(b.lines));
    case 'quote':
      return h('blockquote', {}, joined(b.lines));
    case 'list':
      return h(
        'ul',
        { class: 'mrkdwn-list' },
        b.items.map((item) => h('li', {}, item.map(inlineNode))),
      );
    case 'pre':
      return h('pre', {}, b.children.map(inlineNode));
  }
}

/**
 * @param {unknown} text
 * @returns {DocumentFragment}
 */
export function mrkdwn(text) {
  const frag = document.createDocumentFragment();
  frag.append(...parseMrkdwn(text, context()).map((b) => /** @type {Node} */ (blockNode(b))));
  return frag;
}

/**
 * A plain_text object shows its short codes as emoji, as Slack does with `emoji: true`.
 * @param {string} t
 * @returns {Leaf[]}
 */
export function emojify(t) {
  return textWithEmoji(t, emoji).map(inlineNode);
}

/**
 * @param {TextObject | undefined} t
 * @returns {Leaf}
 */
export function textObj(t) {
  if (!t) return '';
  if (t.type === 'mrkdwn') return mrkdwn(t.text);
  const frag = document.createDocumentFragment();
  for (const n of emojify(t.text ?? ''))
    if (n !== null && n !== undefined) frag.append(n instanceof Node ? n : String(n));
  return frag;
}
