// @ts-check
// The local workspace page: renders what the workspace server says one person sees, and sends
// what that person does back to it. This module only wires the page's own controls and the
// live updates; the parts are dom.js, api.js, state.js, mrkdwn.js (with mrkdwn-parse.js),
// render-blocks.js (Block Kit), form-values.js, act.js, confirm.js, permalink.js, messages.js
// (the pane), modals.js and page.js.

import { post } from './api.js';
import { byId, status } from './dom.js';
import { loadEmoji } from './mrkdwn.js';
import { openPane, refresh, render, scheduleRefresh } from './page.js';
import { OPEN_PERMALINK } from './permalink.js';
import { state } from './state.js';

// A permalink of this workspace (permalink.js): its channel, scrolled to the message.
window.addEventListener(OPEN_PERMALINK, (e) => {
  const { channel, ts } = /** @type {CustomEvent<{ channel: string, ts: string }>} */ (e).detail;
  openPane(channel);
  document.querySelector(`#pane article[data-ts="${CSS.escape(ts)}"]`)?.scrollIntoView({ block: 'center' });
});

byId('home-link').addEventListener('click', () => {
  state.pane = 'home';
  render();
  post('/local/home', { user: state.me }).catch((e) => status(e.message));
});

byId('composer').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId('command'));
  const text = input.value.trim();
  if (!text) return;
  const channel = state.pane === 'home' ? 'C0GENERAL' : state.pane;
  if (state.pane === 'home') openPane(channel);
  input.value = '';
  try {
    await post('/local/command', { user: state.me, channel, text });
    status('');
  } catch (err) {
    status(/** @type {Error} */ (err).message);
    input.value = text;
  }
});

byId('deposit-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = new FormData(/** @type {HTMLFormElement} */ (e.target));
  const out = byId('deposit-status');
  out.textContent = 'Sending…';
  try {
    await post('/local/deposit', Object.fromEntries(f));
    out.textContent = 'Deposit sent; its alert follows.';
  } catch (err) {
    out.textContent = /** @type {Error} */ (err).message;
  }
});

const events = new EventSource('/local/events');
events.addEventListener('open', () => byId('live').classList.add('on'));
events.addEventListener('error', () => byId('live').classList.remove('on'));
events.addEventListener('change', scheduleRefresh);

refresh().catch((e) => status(e.message));
// Slack's short-code table: what was drawn before it arrived is drawn again with emoji.
loadEmoji()
  .then((loaded) => loaded && render())
  .catch(() => undefined);
