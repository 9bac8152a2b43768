// @ts-check
// This workspace's permalinks (https://<domain>.slack.com/archives/<channel>/p<ts>), opened on
// the page as Slack opens them: the channel, scrolled to the message, which is marked. The
// real host would be a browser error page, since this workspace exists only here.

import { state } from './state.js';

/** The event that asks the page (app.js) to open a permalink: page.js renders links, so it is not imported here. */
export const OPEN_PERMALINK = 'treasury:open-permalink';

/**
 * The channel and message a permalink of this workspace points at, or null for any other link.
 * @param {string | undefined} url
 * @returns {{ channel: string, ts: string } | null}
 */
export function ownPermalink(url) {
  if (!url || !state.data) return null;
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.hostname !== `${state.data.teamDomain}.slack.com`) return null;
  const m = /^\/archives\/([CDG][A-Z0-9]+)\/p(\d{10})(\d{6})$/.exec(u.pathname);
  return m ? { channel: /** @type {string} */ (m[1]), ts: `${m[2]}.${m[3]}` } : null;
}

/**
 * Asks the page to open the channel and scroll to the message (app.js does it).
 * @param {{ channel: string, ts: string }} link
 */
export function openPermalink(link) {
  state.highlight = link.ts;
  window.dispatchEvent(new CustomEvent(OPEN_PERMALINK, { detail: link }));
}

/**
 * A link as the page shows it: this workspace's permalinks open on the page, others in a new tab.
 * @param {string} url
 * @returns {Record<string, unknown>} the attributes of the <a>
 */
export function linkAttrs(url) {
  const own = ownPermalink(url);
  if (!own) return { href: url, target: '_blank', rel: 'noopener noreferrer' };
  return {
    href: url,
    /** @param {Event} e */
    onclick: (e) => {
      e.preventDefault();
      openPermalink(own);
    },
  };
}
