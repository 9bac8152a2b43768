// @ts-check
// The modal on top of this person's stack, with its field errors; submitted and closed through
// the workspace as Slack's view_submission and view_closed.

import { post } from './api.js';
import { byId, h, status } from './dom.js';
import { collectValues, restoreValues } from './form-values.js';
import { textObj } from './mrkdwn.js';
import { blocks } from './render-blocks.js';
import { state } from './state.js';

/** @typedef {import('./types.js').ModalView} ModalView */

/** @param {ModalView[]} stack bottom first */
export function renderModals(stack) {
  const layer = byId('modals');
  const top = stack.at(-1);
  // Re-render only when the view itself changed, so what someone is typing survives live updates.
  const key = top ? `${top.id}|${top.hash}|${JSON.stringify(top.errors)}|${stack.length}` : '';
  if (key === state.modalKey) return;
  state.modalKey = key;
  if (!top) return layer.replaceChildren();
  const old = layer.querySelector('form');
  const typed = old && old.dataset.viewId === top.id ? collectValues(old) : null;
  /** @type {import('./types.js').ActionContext} */
  const ctx = { source: 'view', viewId: top.id, errors: top.errors };
  const form = h(
    'form',
    {
      class: 'modal',
      'data-view-id': top.id,
      'aria-label': top.title?.text ?? 'Modal',
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        submitModal(top, form);
      },
    },
    h(
      'header',
      {},
      h('span', {}, textObj(top.title)),
      stack.length > 1 ? h('span', { class: 'stack-depth' }, `${stack.length} stacked`) : null,
    ),
    h(
      'div',
      { class: 'body' },
      top.errors?._ ? h('p', { class: 'modal-error', role: 'alert' }, top.errors._) : null,
      blocks(top.blocks, ctx),
    ),
    h(
      'footer',
      {},
      h(
        'button',
        {
          class: 'bk',
          type: 'button',
          onclick: () =>
            post('/local/close', { user: state.me, viewId: top.id }).catch((e) =>
              status(/** @type {Error} */ (e).message),
            ),
        },
        top.close?.text ?? 'Cancel',
      ),
      top.submit ? h('button', { class: 'bk primary', type: 'submit' }, top.submit.text) : null,
    ),
  );
  // Who is typing where: an update while someone types (the value line of a form) must not
  // take the caret away, as it does not in Slack.
  const focused = typed ? document.activeElement : null;
  const caret =
    focused instanceof HTMLInputElement || focused instanceof HTMLTextAreaElement
      ? { name: focused.name, start: focused.selectionStart, end: focused.selectionEnd }
      : focused instanceof HTMLSelectElement
        ? { name: focused.name, start: null, end: null }
        : null;
  if (typed) restoreValues(form, typed);
  layer.replaceChildren(h('div', { class: 'overlay', role: 'dialog', 'aria-label': top.title?.text ?? 'Modal' }, form));
  if (caret?.name) {
    const again = form.querySelector(`[name="${CSS.escape(caret.name)}"]`);
    if (again instanceof HTMLElement) again.focus();
    if ((again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement) && caret.start !== null)
      again.setSelectionRange(caret.start, caret.end);
  }
}

/**
 * @param {ModalView} view
 * @param {HTMLFormElement} form
 */
async function submitModal(view, form) {
  try {
    const values = collectValues(form);
    // A file_input: the chosen file goes to the workspace's Slack first; the submission names it by id, as Slack's does.
    for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll('input[type=file]'))) {
      const file = input.files?.[0];
      const actionId = /** @type {string} */ (input.dataset.actionId);
      const uploaded = file
        ? /** @type {{ id: string }} */ (
            await post('/local/upload', { user: state.me, name: file.name, content: await file.text() })
          )
        : undefined;
      values[input.name] = { [actionId]: { type: 'file_input', files: uploaded ? [{ id: uploaded.id }] : [] } };
    }
    await post('/local/submit', { user: state.me, viewId: view.id, values });
  } catch (err) {
    status(/** @type {Error} */ (err).message);
  }
}
