// @ts-check
// A modal's inputs as Slack reports them (view.state.values), and back: what someone typed
// is kept when a live update redraws the modal.

/** @typedef {import('./types.js').FieldValue} FieldValue */
/** @typedef {import('./types.js').FormValues} FormValues */

/**
 * The inputs of a form: each carries its block id as `name` and its action id as data-action-id.
 * @param {ParentNode} form
 * @returns {NodeListOf<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>}
 */
const inputs = (form) => form.querySelectorAll('[data-action-id][name]');

/**
 * @param {ParentNode} form
 * @returns {FormValues}
 */
export function collectValues(form) {
  /** @type {FormValues} */
  const values = {};
  for (const el of inputs(form)) {
    const blockId = el.name;
    // Present: the selector asks for it.
    const actionId = /** @type {string} */ (el.dataset.actionId);
    const type = el.dataset.type;
    /** @type {FieldValue} */
    let v;
    if (el instanceof HTMLSelectElement) {
      const opt = /** @type {HTMLOptionElement} */ (el.selectedOptions[0]);
      v = {
        type,
        selected_option: el.value
          ? { text: { type: 'plain_text', text: opt.textContent, emoji: true }, value: el.value }
          : null,
      };
    } else if (type === 'number_input') v = { type, value: el.value === '' ? null : el.value };
    else v = { type, value: el.value === '' ? null : el.value };
    values[blockId] = { [actionId]: v };
  }
  return values;
}

/**
 * @param {ParentNode} form
 * @param {FormValues} values
 */
export function restoreValues(form, values) {
  for (const el of inputs(form)) {
    const v = values[el.name]?.[/** @type {string} */ (el.dataset.actionId)];
    if (!v) continue;
    if (el instanceof HTMLSelectElement) el.value = v.selected_option?.value ?? '';
    else if (v.value !== null) el.value = /** @type {string} */ (v.value);
  }
}
