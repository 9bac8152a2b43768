// @ts-check
/** The enrolment page: options from the app, the browser's registration, the answer back. */
import { ceremonyWords, pageToken, post, say, SYSTEM_BROWSER, webAuthnMissing } from './common.js';

const token = pageToken();
const button = /** @type {HTMLButtonElement} */ (document.getElementById('go'));
const nameInput = /** @type {HTMLInputElement} */ (document.getElementById('name'));

if (webAuthnMissing()) {
  button.disabled = true;
  say(SYSTEM_BROWSER, 'refused');
}

button.addEventListener('click', async () => {
  button.disabled = true;
  say('Waiting for your passkey…', 'working');
  const base = `/passkeys/enrol/${encodeURIComponent(token)}`;
  try {
    const got = await post(`${base}/options`, {});
    if (!got.ok || !got.options) return say(got.message ?? 'This link cannot be used.', 'refused');
    let response;
    try {
      response = await globalThis.SimpleWebAuthnBrowser.startRegistration({ optionsJSON: got.options });
    } catch (err) {
      button.disabled = false;
      return say(ceremonyWords(err), 'refused');
    }
    const done = await post(base, { name: nameInput.value, response });
    say(done.message ?? '', done.ok ? 'done' : 'refused');
    if (!done.ok) button.disabled = false;
  } catch {
    button.disabled = false;
    say('The app could not be reached. Nothing was changed. Try again.', 'refused');
  }
});
