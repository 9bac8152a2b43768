export { bindingChallenge, boundFacts, canonicalJson, policyVersion, type BoundFacts } from './binding.js';
export {
  createPasskeyConfirmation,
  type ApprovalPath,
  type BatchApprovalPath,
  type ConfirmOutcome,
  type PasskeyConfirmation,
} from './confirm.js';
export { createPasskeyEnrolment, linkUrl, type PasskeyEnrolment } from './enrol.js';
export { relyingParty, TOKEN_PATTERN, type PasskeyPartOptions, type RelyingParty } from './shared.js';
export {
  CHALLENGE_TTL_MS,
  CHALLENGES,
  CREDENTIALS,
  LINK_TTL_MS,
  LINKS,
  MAX_NAME,
  PASSKEY_NOTICES,
  type PasskeyChallenge,
  type PasskeyCredential,
  type PasskeyNotice,
} from './types.js';
export { CONFIRM_WORDS, ENROL_WORDS, NO_PASSKEY_WORDS, passkeyTooNewWords, type ConfirmRefusal } from './words.js';

import type { PasskeyConfirmation } from './confirm.js';
import type { PasskeyEnrolment } from './enrol.js';

/** The passkey part as the rest of the app uses it (deps.passkeys). */
export interface Passkeys {
  enrolment: PasskeyEnrolment;
  confirmation: PasskeyConfirmation;
}
