/**
 * Sentences about repeats and holds that only Slack shows (the card): kept on the Slack side, as
 * the domain returns facts (hold, confirmation, family) and its own refusals only.
 */

/** Why a new request cannot repeat an earlier one the service now reports: it may have been paid. */
export const CONTRADICTED_NEVER_EXECUTED =
  'The wallet service now reports this withdrawal after it had no record of it: it may have been paid. Do not pay it again; an admin must check it in the wallet service first.';
