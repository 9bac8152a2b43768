// @ts-check
/**
 * What both passkey pages do: read their token, post JSON to their own address, and say the
 * outcome as text (never as markup). The WebAuthn ceremony itself is @simplewebauthn/browser's
 * (webauthn.js, loaded first as a classic script: the global SimpleWebAuthnBrowser).
 */

/** The page's token, from its script tag's data attribute. */
export function pageToken() {
  const el = document.getElementById('passkey-script');
  return el?.dataset.token ?? '';
}

/**
 * @param {string} text
 * @param {'working' | 'done' | 'refused'} kind
 */
export function say(text, kind) {
  const el = /** @type {HTMLElement} */ (document.getElementById('status'));
  el.textContent = text;
  el.className = `status ${kind}`;
}

/**
 * @param {string} url
 * @param {unknown} body
 * @returns {Promise<{ ok: boolean; message?: string; options?: any }>}
 */
export async function post(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  try {
    return await res.json();
  } catch {
    return { ok: false, message: `The app answered ${res.status}. Nothing was changed. Try again.` };
  }
}

/** Whether this browser can use passkeys at all (some in-app browsers cannot). */
export function webAuthnMissing() {
  const lib = globalThis.SimpleWebAuthnBrowser;
  return !lib?.browserSupportsWebAuthn();
}

export const SYSTEM_BROWSER =
  'This browser cannot use passkeys (it may be an app’s built-in browser). Open this link in your system browser (Safari, Chrome, Edge or Firefox).';

/** What a failed ceremony in the browser means, in words (the browser's own error names). @param {unknown} err */
export function ceremonyWords(err) {
  const name = err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError')
    return 'The passkey request was cancelled or timed out. Nothing was changed. Press the button to try again.';
  if (name === 'InvalidStateError') return 'This passkey is already set up for you. Nothing was changed.';
  if (name === 'SecurityError')
    return 'Your browser refused this page’s address for passkeys. Open the link exactly as it was sent to you.';
  return `Your browser could not use a passkey here. ${SYSTEM_BROWSER}`;
}
