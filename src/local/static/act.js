// @ts-check
// Doing things: a click or a choice is sent to the workspace, which sends it to the app as
// Slack would. What the app does about it comes back through the live updates.

import { post } from './api.js';
import { showConfirm } from './confirm.js';
import { status } from './dom.js';
import { collectValues } from './form-values.js';
import { openPermalink, ownPermalink } from './permalink.js';
import { state } from './state.js';

/** @typedef {import('./types.js').ActionContext} ActionContext */
/** @typedef {import('./types.js').BlockElement} BlockElement */
/** @typedef {import('./types.js').ClickedAction} ClickedAction */

/**
 * @param {BlockElement} el
 * @param {string} blockId
 * @param {ActionContext} ctx
 */
export function clickButton(el, blockId, ctx) {
  const own = ownPermalink(el.url);
  if (own) openPermalink(own);
  else if (el.url) window.open(el.url, '_blank', 'noopener');
  const go = () =>
    act({ action_id: el.action_id, block_id: blockId, type: 'button', value: el.value, text: el.text?.text }, ctx);
  if (el.confirm) return showConfirm(el.confirm, go);
  go();
}

/**
 * @param {ClickedAction} action
 * @param {ActionContext} ctx
 */
export async function act(action, ctx) {
  /** @type {Record<string, unknown>} */
  const body = { source: ctx.source, user: state.me, action };
  if (ctx.source === 'message' || ctx.source === 'ephemeral') Object.assign(body, { channel: ctx.channel, ts: ctx.ts });
  if (ctx.source === 'view') {
    // An action inside a modal carries what is typed in it, as Slack's block_actions do; the App
    // Home is a view too, with no form.
    const form = document.querySelector('#modals form');
    Object.assign(body, {
      viewId: ctx.viewId,
      ...(form instanceof HTMLFormElement ? { values: collectValues(form) } : {}),
    });
  }
  try {
    await post('/local/action', body);
    status('');
  } catch (err) {
    status(/** @type {Error} */ (err).message);
  }
}
