// @ts-check
/** The confirmation page: the bound challenge from the app, the browser's assertion, the answer back. */
import { ceremonyWords, pageToken, post, say, SYSTEM_BROWSER, webAuthnMissing } from './common.js';

const token = pageToken();
const button = /** @type {HTMLButtonElement} */ (document.getElementById('go'));

if (webAuthnMissing()) {
  button.disabled = true;
  say(SYSTEM_BROWSER, 'refused');
}

button.addEventListener('click', async () => {
  button.disabled = true;
  say('Waiting for your passkey…', 'working');
  const base = `/confirm/${encodeURIComponent(token)}`;
  try {
    const got = await post(`${base}/options`, {});
    if (!got.ok || !got.options) return say(got.message ?? 'This confirmation cannot be used.', 'refused');
    let response;
    try {
      response = await globalThis.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: got.options });
    } catch (err) {
      button.disabled = false;
      return say(ceremonyWords(err), 'refused');
    }
    const done = await post(base, { response });
    // One answer per confirmation: the button stays off whatever it said.
    say(done.message ?? '', done.ok ? 'done' : 'refused');
  } catch {
    say('The app could not be reached. Nothing was approved. Press Approve on the card again.', 'refused');
  }
});
