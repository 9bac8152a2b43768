// @ts-check
// Block Kit, rendered as Slack shows it: the blocks of messages, modals and the Home tab,
// their buttons and selects (which act), and the inputs of modals.

import { act, clickButton } from './act.js';
import { h } from './dom.js';
import { textObj } from './mrkdwn.js';
import { personName } from './state.js';

/** @typedef {import('./dom.js').Leaf} Leaf */
/** @typedef {import('./types.js').ActionContext} ActionContext */
/** @typedef {import('./types.js').Block} Block */
/** @typedef {import('./types.js').BlockElement} BlockElement */
/** @typedef {import('./types.js').RichTextElement} RichTextElement */
/** @typedef {import('./types.js').TextObject} TextObject */

/**
 * A select's options, grouped or not.
 * @param {BlockElement} el
 */
const optionsOf = (el) => el.options ?? (el.option_groups ?? []).flatMap((g) => g.options);

/**
 * `ctx` says where an action happens: { source: 'message'|'ephemeral'|'view'|'home', channel, ts, viewId }.
 * @param {BlockElement | undefined} el
 * @param {string} blockId
 * @param {ActionContext} ctx
 * @returns {HTMLElement | null}
 */
function element(el, blockId, ctx) {
  if (!el) return null;
  switch (el.type) {
    case 'button':
      return h(
        'button',
        {
          class: `bk ${el.style ?? ''}`,
          type: 'button',
          'data-action-id': el.action_id,
          onclick: () => clickButton(el, blockId, ctx),
        },
        textObj(el.text),
      );
    case 'image':
      return h('img', { src: el.image_url, alt: el.alt_text ?? '', class: 'block-image' });
    case 'static_select':
    case 'overflow': {
      const options = optionsOf(el);
      const sel = h(
        'select',
        {
          'data-action-id': el.action_id,
          /** @param {Event} e */
          onchange: (e) => {
            const o = options.find((x) => x.value === /** @type {HTMLSelectElement} */ (e.target).value);
            if (o) act({ action_id: el.action_id, block_id: blockId, type: el.type, selected_option: o }, ctx);
          },
        },
        h('option', { value: '' }, el.placeholder?.text ?? 'Choose…'),
        options.map((o) => h('option', { value: o.value }, o.text.text)),
      );
      return sel;
    }
    case 'mrkdwn':
    case 'plain_text':
      // A text element is itself a text object.
      return h('span', {}, textObj(/** @type {TextObject} */ (/** @type {unknown} */ (el))));
    default:
      return h('span', { class: 'empty' }, `[${el.type}]`);
  }
}

/**
 * @param {Block} b
 * @param {ActionContext} ctx
 * @param {number} i
 * @returns {HTMLElement}
 */
function block(b, ctx, i) {
  const blockId = b.block_id ?? `b${i}`;
  switch (b.type) {
    case 'header':
      return h('div', { class: 'block header' }, textObj(b.text));
    case 'section': {
      const main = h(
        'div',
        {},
        b.text ? h('div', {}, textObj(b.text)) : null,
        b.fields
          ? h(
              'div',
              { class: 'fields' },
              b.fields.map((f) => h('div', {}, textObj(f))),
            )
          : null,
      );
      return h(
        'div',
        { class: 'block section' },
        main,
        b.accessory ? h('div', { class: 'accessory' }, element(b.accessory, blockId, ctx)) : null,
      );
    }
    case 'context':
      return h(
        'div',
        { class: 'block context' },
        (b.elements ?? []).map((e) =>
          e.type === 'image'
            ? h('img', { src: e.image_url, alt: e.alt_text ?? '' })
            : h('span', {}, textObj(/** @type {TextObject} */ (/** @type {unknown} */ (e)))),
        ),
      );
    case 'divider':
      return h('hr', { class: 'divider' });
    case 'image':
      return h(
        'figure',
        { class: 'block' },
        // An uploaded image (slack_file) is served by the local workspace, shared or not, as Slack shows it.
        h('img', {
          src: b.slack_file?.id ? `/local/files/${encodeURIComponent(b.slack_file.id)}` : b.image_url,
          alt: b.alt_text ?? '',
          class: 'block-image',
        }),
        b.title ? h('figcaption', {}, textObj(b.title)) : null,
      );
    case 'actions':
      return h(
        'div',
        { class: 'block actions' },
        (b.elements ?? []).map((e) => element(e, blockId, ctx)),
      );
    case 'input':
      return inputBlock(b, ctx, blockId);
    case 'rich_text':
      return h(
        'div',
        { class: 'block' },
        richText(/** @type {RichTextElement[]} */ (/** @type {unknown} */ (b.elements ?? []))),
      );
    default:
      return h('div', { class: 'block empty' }, `[${b.type} block]`);
  }
}

/**
 * @param {RichTextElement[]} elements
 * @returns {Leaf[]}
 */
function richText(elements) {
  return elements.map((e) => {
    if (e.type === 'text') return e.text;
    if (e.type === 'link')
      return h(
        'a',
        { href: /^https?:/i.test(e.url ?? '') ? e.url : '#', target: '_blank', rel: 'noopener noreferrer' },
        e.text ?? e.url,
      );
    if (e.type === 'user') return h('span', { class: 'mention' }, `@${personName(e.user_id)}`);
    if (e.elements) return h(e.type === 'rich_text_preformatted' ? 'pre' : 'div', {}, richText(e.elements));
    return '';
  });
}

/**
 * @param {Block[] | undefined} list
 * @param {ActionContext} ctx
 */
export function blocks(list, ctx) {
  return (list ?? []).map((b, i) => block(b, ctx, i));
}

/**
 * An input block of a modal; its control carries what form-values.js reads back.
 * @param {Block} b
 * @param {ActionContext} ctx
 * @param {string} blockId
 */
function inputBlock(b, ctx, blockId) {
  const el = /** @type {BlockElement} */ (b.element ?? {});
  const id = `in-${blockId}`;
  const error = ctx.errors?.[blockId];
  let control;
  const common = { id, name: blockId, 'data-action-id': el.action_id, 'data-type': el.type };
  if (el.type === 'static_select') {
    const options = optionsOf(el);
    control = h(
      'select',
      common,
      h('option', { value: '' }, el.placeholder?.text ?? 'Choose an option'),
      options.map((o) => h('option', { value: o.value, selected: el.initial_option?.value === o.value }, o.text.text)),
    );
  } else if (el.type === 'file_input') {
    // The file is read and handed to the workspace's Slack when the form is submitted (modals.js).
    const accept = (el.filetypes ?? []).map((t) => `.${t}`).join(',');
    control = h('input', { ...common, type: 'file', ...(accept ? { accept } : {}) });
  } else if (el.multiline) {
    control = h(
      'textarea',
      { ...common, rows: 3, placeholder: el.placeholder?.text, maxlength: el.max_length },
      el.initial_value ?? '',
    );
  } else {
    const type =
      el.type === 'email_text_input'
        ? 'email'
        : el.type === 'number_input'
          ? 'text'
          : el.type === 'url_text_input'
            ? 'url'
            : 'text';
    control = h('input', {
      ...common,
      type,
      placeholder: el.placeholder?.text,
      value: el.initial_value,
      maxlength: el.max_length,
    });
  }
  if (b.dispatch_action) dispatchFrom(control, el, blockId, ctx);
  return h(
    'div',
    { class: `block input${error ? ' has-error' : ''}` },
    h('label', { for: id }, textObj(b.label), b.optional ? h('span', { class: 'optional' }, ' (optional)') : null),
    control,
    error ? h('div', { class: 'field-error', role: 'alert' }, error) : null,
    b.hint ? h('div', { class: 'hint' }, textObj(b.hint)) : null,
  );
}

/** How long typing pauses before an `on_character_entered` action is sent (Slack also waits for a pause). */
const TYPING_PAUSE_MS = 300;

/**
 * An input block with `dispatch_action`: its control sends a block action as Slack's does, a
 * select when it is chosen, a text input on Enter and, when its `dispatch_action_config` asks
 * for `on_character_entered`, once typing pauses. The action carries the form's values.
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @param {BlockElement} el
 * @param {string} blockId
 * @param {ActionContext} ctx
 */
function dispatchFrom(control, el, blockId, ctx) {
  const send = () =>
    act(
      el.type === 'static_select'
        ? {
            action_id: el.action_id,
            block_id: blockId,
            type: el.type,
            selected_option: optionsOf(el).find((o) => o.value === control.value),
          }
        : { action_id: el.action_id, block_id: blockId, type: el.type, value: control.value },
      ctx,
    );
  if (control instanceof HTMLSelectElement) {
    control.addEventListener('change', send);
    return;
  }
  const on = el.dispatch_action_config?.trigger_actions_on ?? ['on_enter_pressed'];
  if (on.includes('on_enter_pressed'))
    control.addEventListener('keydown', (e) => {
      if (/** @type {KeyboardEvent} */ (e).key !== 'Enter' || control instanceof HTMLTextAreaElement) return;
      // In Slack, Enter in such an input sends its action rather than submitting the form.
      e.preventDefault();
      send();
    });
  if (on.includes('on_character_entered')) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    control.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(send, TYPING_PAUSE_MS);
    });
  }
}
