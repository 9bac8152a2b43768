// @ts-check
// The page's one piece of state: who is looking, at which pane, and what the server last said
// they see. Shared by the modules that render and navigate.

/** @typedef {import('./types.js').PageState} PageState */

export const state = {
  me: localStorage.getItem('me') || '',
  pane: localStorage.getItem('pane') || 'C0GENERAL',
  /** @type {PageState | null} */
  data: null,
  /** What the open modal was last rendered from (see modals.js). */
  modalKey: '',
  /** The message a permalink opened (its ts), marked until another is opened. */
  highlight: '',
};

/** @param {string | undefined} id */
export function personName(id) {
  const p = state.data?.people.find((x) => x.id === id);
  return p ? p.name : id;
}

/** @param {string} id */
export function channelName(id) {
  const c = state.data?.channels.find((x) => x.id === id);
  return c ? c.name : id;
}
