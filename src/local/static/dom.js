// @ts-check
// Tiny DOM helpers. Everything from the app or from users is put on the page as text nodes
// (never as HTML), so a message can never become markup or script.

/** @typedef {Node | string | number | boolean | null | undefined} Leaf */
/** A child, or a list of them (a list in a list is not flattened). @typedef {Leaf | Leaf[]} Child */

/**
 * An element with attributes (`on…` ones become listeners) and children (text becomes text nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false)
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/**
 * An element of index.html, which the page cannot work without.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * The line under the composer that says what went wrong (empty when all is well).
 * @param {string} text
 */
export function status(text) {
  byId('composer-status').textContent = text;
}
