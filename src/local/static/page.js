// @ts-check
// The page as a whole: the sidebar (people, channels, DMs), the open pane and the modals,
// redrawn from the server's state for the chosen person; switching person or pane; refetching
// when the live updates say something changed.

import { byId, h, status } from './dom.js';
import { renderPane } from './messages.js';
import { renderModals } from './modals.js';
import { state } from './state.js';

/** @typedef {import('./types.js').ChannelView} ChannelView */

export function render() {
  const d = state.data;
  if (!d) return;
  const people = byId('people');
  people.replaceChildren(
    ...d.people.map((p) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            class: 'person',
            type: 'button',
            'aria-current': String(p.id === state.me),
            'data-user': p.id,
            onclick: () => switchUser(p.id),
          },
          p.name,
          h('span', { class: 'roles' }, p.roles.join(', ') || 'no role'),
        ),
      ),
    ),
  );
  /** @param {ChannelView} c */
  const nav = (c) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          class: 'nav',
          type: 'button',
          'aria-current': String(state.pane === c.id),
          'data-channel': c.name,
          onclick: () => openPane(c.id),
        },
        c.kind === 'dm' ? c.name : `# ${c.name}`,
      ),
    );
  byId('channels').replaceChildren(...d.channels.filter((c) => c.kind === 'channel').map(nav));
  byId('dms').replaceChildren(...d.channels.filter((c) => c.kind === 'dm').map(nav));
  byId('home-link').setAttribute('aria-current', String(state.pane === 'home'));
  byId('deposit-section').hidden = !d.sandbox;
  renderPane(d);
  renderModals(d.modals);
}

/** @returns {Promise<void>} */
export async function refresh() {
  if (!state.me) {
    // Nobody chosen yet: ask who there is, and be the first of them.
    const res = await fetch('/local/state?user=U0NOBODY');
    const d = await res.json();
    state.me = d.people[0]?.id ?? 'U0NOBODY';
  }
  const res = await fetch(`/local/state?user=${encodeURIComponent(state.me)}`);
  if (!res.ok) return;
  const data = /** @type {import('./types.js').PageState} */ (await res.json());
  state.data = data;
  // Someone the policy no longer names (a governed change, or a stale choice) becomes the first person.
  if (!data.people.some((p) => p.id === state.me) && data.people[0]) {
    state.me = data.people[0].id;
    return refresh();
  }
  render();
}

/** @type {ReturnType<typeof setTimeout> | null} */
let pendingRefresh = null;

/** One refetch for a burst of live updates. */
export function scheduleRefresh() {
  if (pendingRefresh) return;
  pendingRefresh = setTimeout(() => {
    pendingRefresh = null;
    refresh().catch((e) => status(e.message));
  }, 20);
}

/** @param {string} id */
function switchUser(id) {
  state.me = id;
  localStorage.setItem('me', id);
  state.modalKey = '';
  // Another person's Home tab or DM is not theirs to see.
  if (state.pane === 'home' || state.data?.channels.find((c) => c.id === state.pane)?.kind === 'dm')
    state.pane = 'C0GENERAL';
  refresh();
}

/** @param {string} id */
export function openPane(id) {
  state.pane = id;
  localStorage.setItem('pane', id);
  render();
}
