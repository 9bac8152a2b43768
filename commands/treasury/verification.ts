/**
 * The verification callback in /treasury status: the URL to paste into the wallet service's
 * dashboard, with no character of the secret (`…/webhooks/wallet/••••/verify`); an admin sees it
 * in full only with `/treasury verification-url`, ephemerally (that verb is here too).
 */
import { currentFreeze } from '../../src/freeze/state.js';
import { utcMinute } from '../../src/format/time.js';
import { outside } from '../../src/format/outside.js';
import type { CommandDeps } from '../deps.js';
import type { VerbRun } from './verb.js';

export function maskedVerificationUrl(deps: CommandDeps): string {
  const full = deps.verificationUrl();
  if (!full) return 'PUBLIC_URL is not set, so the wallet service has no URL to call.';
  // The secret segment: hidden whole (not even its last characters: a hint narrows a guess).
  return full.replace(/\/webhooks\/wallet\/[^/]+\/verify$/, '/webhooks/wallet/••••/verify');
}

/** The status fields for admins: the verification URL, and whether sends are frozen. */
export function verificationStatusFields(deps: CommandDeps): Array<[string, string]> {
  const f = currentFreeze(deps.store);
  return [
    [
      'Verification URL',
      `${outside(maskedVerificationUrl(deps))}\nPaste it into the wallet service's dashboard; \`/treasury verification-url\` shows it in full, only to you.`,
    ],
    [
      'Sends',
      f
        ? `:octagonal_sign: Frozen by <@${f.by}> since ${utcMinute(f.at)}: ${outside(f.reason)}${f.unfreezeRequest ? ` · <@${f.unfreezeRequest.by}> asked to unfreeze` : ''}`
        : ':large_green_circle: not frozen',
    ],
  ];
}

export const verificationUrlVerb: VerbRun = {
  // Only to the admin who asked, ephemeral: the URL carries the webhook secret. Never logged.
  run: async ({ deps, respond }) => {
    const full = deps.verificationUrl();
    await respond({
      response_type: 'ephemeral',
      text: full
        ? `The verification URL to paste into the wallet service's dashboard (as its verification URL). Keep it private: it carries the webhook secret.\n\`${full}\``
        : `There is no verification URL yet: ${maskedVerificationUrl(deps)}`,
    });
  },
};
