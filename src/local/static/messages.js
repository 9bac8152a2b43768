// @ts-check
// The open pane: a channel's or DM's messages (with their threads, files and attachments) and
// the ephemerals only this person sees, in time order, or the Home tab.

import { byId, h } from './dom.js';
import { mrkdwn } from './mrkdwn.js';
import { blocks } from './render-blocks.js';
import { state } from './state.js';

/** @typedef {import('./types.js').ChannelView} ChannelView */
/** @typedef {import('./types.js').MessageView} MessageView */
/** @typedef {import('./types.js').PageState} PageState */

/** @param {PageState} d */
export function renderPane(d) {
  const pane = byId('pane');
  const atBottom = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
  const title = byId('pane-title');
  if (state.pane === 'home') {
    title.textContent = 'Treasury · Home';
    pane.replaceChildren(
      d.home
        ? h('div', { class: 'home' }, blocks(d.home.blocks, { source: 'home' }))
        : h('p', { class: 'empty' }, 'Opening the Home tab…'),
    );
    return;
  }
  // A pane that is gone (remembered from another visit) falls back to the first channel; #general always is.
  const c = /** @type {ChannelView} */ (d.channels.find((x) => x.id === state.pane) ?? d.channels[0]);
  state.pane = c.id;
  title.textContent = c.kind === 'dm' ? c.name : `#${c.name}`;
  const items = [
    ...c.messages.map((m) => ({ ts: m.ts, node: message(m, c, false) })),
    ...c.ephemerals.map((m) => ({ ts: m.ts, node: message(m, c, true) })),
  ].sort((a, b) => (tsKey(a.ts) < tsKey(b.ts) ? -1 : 1));
  pane.replaceChildren(...(items.length ? items.map((i) => i.node) : [h('p', { class: 'empty' }, 'No messages yet.')]));
  if (atBottom) pane.scrollTop = pane.scrollHeight;
}

/**
 * A Slack ts as a string that sorts in time order.
 * @param {string} ts
 */
function tsKey(ts) {
  const [s, f = ''] = String(ts).split('.');
  return `${s.padStart(12, '0')}.${f.padEnd(6, '0')}`;
}

/**
 * @param {MessageView} m
 * @param {ChannelView} c
 * @param {boolean} ephemeral
 * @returns {HTMLElement}
 */
function message(m, c, ephemeral) {
  /** @type {import('./types.js').ActionContext} */
  const ctx = { source: ephemeral ? 'ephemeral' : 'message', channel: c.id, ts: m.ts };
  const when = new Date(Number(String(m.ts).split('.')[0]) * 1000).toLocaleTimeString();
  const body = m.blocks?.length ? blocks(m.blocks, ctx) : [h('div', {}, mrkdwn(m.text))];
  const files = (m.files ?? []).map((f) =>
    h(
      'div',
      { class: 'file' },
      f.image ? h('img', { src: `/local/files/${encodeURIComponent(f.id)}`, alt: f.title, class: 'file-image' }) : null,
      h('a', { href: `/local/files/${encodeURIComponent(f.id)}`, download: f.name }, `📎 ${f.title || f.name}`),
      h('span', { class: 'meta' }, ` ${f.size} bytes`),
    ),
  );
  const attachments = (m.attachments ?? []).map((a) =>
    h(
      'div',
      { class: 'block', style: undefined },
      a.blocks ? blocks(a.blocks, ctx) : mrkdwn(a.text ?? a.fallback ?? ''),
    ),
  );
  const node = h(
    'article',
    {
      class: `msg${ephemeral ? ' ephemeral' : ''}${m.ts === state.highlight ? ' linked' : ''}`,
      'data-ts': m.ts,
    },
    h(
      'div',
      {},
      h('span', { class: 'who' }, 'Treasury'),
      h('span', { class: 'meta' }, when, m.edited ? ' (edited)' : ''),
      ephemeral ? h('span', { class: 'only-you' }, ' · Only visible to you') : null,
    ),
    body,
    attachments,
    files,
  );
  const replies = m.replies ?? [];
  if (!replies.length) return node;
  return h(
    'div',
    {},
    node,
    h('div', { class: 'thread-label' }, `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`),
    h(
      'div',
      { class: 'thread' },
      replies.map((r) => message(r, c, false)),
    ),
  );
}
