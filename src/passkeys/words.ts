/**
 * What a person is told when a passkey step is refused: status first, what it means for the
 * money (nothing was approved), then what to do. Plain text: the page shows it as text.
 */
export type ConfirmRefusal =
  | 'unknown_link'
  | 'malformed'
  | 'replayed'
  | 'expired'
  | 'other_request'
  | 'wrong_origin'
  | 'unknown_credential'
  | 'other_user'
  | 'too_new'
  | 'changed'
  | 'no_user_verification'
  | 'counter'
  | 'bad_signature';

const AGAIN = 'Press Approve on the card again for a new confirmation.';

export const CONFIRM_WORDS: Readonly<Record<ConfirmRefusal, string>> = {
  unknown_link: `This confirmation link is not valid. Nothing was approved. ${AGAIN}`,
  malformed: `Your browser sent an answer the app cannot read. Nothing was approved. ${AGAIN}`,
  replayed:
    'This confirmation was already used: nothing more was approved. If you still need to approve, ' +
    AGAIN.toLowerCase(),
  expired: `This confirmation expired (it lasts 5 minutes). Nothing was approved. ${AGAIN}`,
  other_request: `This passkey answer was signed for another withdrawal, not this one. Nothing was approved. ${AGAIN}`,
  wrong_origin:
    'This answer came through a page that is not the Treasury app’s own address. Nothing was approved. ' +
    'If you did not mean to open another page, tell an admin: someone may be relaying your sign-in.',
  unknown_credential:
    'This passkey is not registered with the Treasury app (it may have been removed). Nothing was approved. ' +
    'Use a passkey listed by /treasury passkey list, or set one up with /treasury passkey.',
  other_user: 'This passkey belongs to someone else. Nothing was approved. Confirm with your own passkey.',
  too_new:
    'This passkey was set up too recently to confirm approvals: a new passkey counts only after the policy’s waiting time, so the admins can check it was you who set it up. Nothing was approved.',
  changed:
    'The withdrawal or the treasury policy changed after this confirmation was opened: it is no longer exactly what you were shown. ' +
    'Nothing was approved. Look at the card again and, if it is still right, press Approve again.',
  no_user_verification:
    'Your passkey did not verify it was you (no PIN, fingerprint or face check). Nothing was approved. ' +
    'Use a passkey or security key that asks for one.',
  counter:
    'This security key’s counter went backwards, which happens when a key has been copied. Nothing was approved. Tell an admin.',
  bad_signature: `The passkey’s answer could not be verified. Nothing was approved. ${AGAIN}`,
};

export type EnrolRefusal =
  | 'unknown_link'
  | 'used'
  | 'expired'
  | 'malformed'
  | 'not_verified'
  | 'name_taken'
  | 'too_many'
  | 'credential_taken';

export const ENROL_WORDS: Readonly<Record<EnrolRefusal, string>> = {
  unknown_link: 'This set-up link is not valid. Type /treasury passkey in Slack for a new one.',
  used: 'This set-up link was already used. Type /treasury passkey in Slack for a new one.',
  expired: 'This set-up link expired (it lasts 15 minutes). Type /treasury passkey in Slack for a new one.',
  malformed: 'Your browser sent an answer the app cannot read. Nothing was saved. Try again.',
  not_verified:
    'The passkey could not be registered: it must verify it is you (PIN, fingerprint or face) and answer for this app’s address. Nothing was saved.',
  name_taken: 'You already have a passkey with that name. Choose another name.',
  too_many: 'You already have 10 passkeys. Remove one with /treasury passkey remove <name> first.',
  credential_taken:
    'This passkey could not be set up: that key is already registered with the app. Nothing was saved, and the attempt is on the record. Use another passkey or security key, or ask an admin.',
};

export const NO_PASSKEY_WORDS =
  'Approving this withdrawal needs a passkey or security key, and you have none set up yet: type /treasury passkey ' +
  '(or press “Set up a passkey” on the Treasury app’s Home tab) and follow the link in your direct messages. Then press Approve again.';

/** Approve pressed while every passkey of the approver is still in its waiting time. */
export const passkeyTooNewWords = (from: string): string =>
  `Your passkey was set up recently: it confirms approvals from ${from}, so the admins can check it was you who set it up. Nothing was approved. Press Approve again then (or use your authenticator code where one is enough).`;
