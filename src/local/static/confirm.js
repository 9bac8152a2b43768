// @ts-check
// A button's `confirm` dialog, shown over everything (modals included) until answered.

import { byId, h } from './dom.js';
import { textObj } from './mrkdwn.js';

/**
 * @param {import('./types.js').Confirm} c
 * @param {() => void} go what the button does once confirmed
 */
export function showConfirm(c, go) {
  const layer = byId('confirm-layer');
  const close = () => layer.replaceChildren();
  layer.replaceChildren(
    h(
      'div',
      { class: 'overlay', role: 'dialog', 'aria-label': c.title?.text ?? 'Are you sure?' },
      h(
        'div',
        { class: 'modal' },
        h('header', {}, textObj(c.title ?? { type: 'plain_text', text: 'Are you sure?' })),
        h('div', { class: 'body' }, textObj(c.text)),
        h(
          'footer',
          {},
          h('button', { class: 'bk', type: 'button', onclick: close }, c.deny?.text ?? 'Cancel'),
          h(
            'button',
            {
              class: `bk ${c.style ?? 'primary'}`,
              type: 'button',
              onclick: () => {
                close();
                go();
              },
            },
            c.confirm?.text ?? 'Yes',
          ),
        ),
      ),
    ),
  );
}
