/**
 * Approve on a request above the policy's step_up_above (card or App Home): instead of
 * approving at once, the approver is asked for a code from their authenticator app in a modal
 * (opened with the click's trigger_id, after the ack). Someone who may not approve is told so
 * first, and someone without codes set up is told how to set them up; the code itself is
 * checked on submission (commands/withdraw/step-up-submitted.ts). Above passkey_above (and for an
 * approver whose passkey is past its waiting time, wherever a code would do), a passkey confirmation is
 * started instead and the approver answered privately with "Confirm with your passkey", which opens
 * the page (src/passkeys/web/). What is needed is the domain's rule (src/stepup/threshold.ts), which
 * decide() enforces again: this only routes.
 */
import type { App } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import { z } from 'zod';
import { section, shorten } from './blocks.js';
import { outside } from '../format/outside.js';
import { amountText } from './withdrawal/index.js';
import { lockedWords, stepUpNeed, type StepUpNeed } from '../stepup/index.js';
import { NO_PASSKEY_WORDS, passkeyTooNewWords } from '../passkeys/index.js';
import { utcMinute } from '../format/time.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';
import type { CommandDeps } from './deps.js';

export const STEP_UP_VIEW = 'withdraw_step_up';
export const CODE_BLOCK = 'stepup_code';
export const CODE_ACTION = 'code';
export const INVALID_CODE = 'That code is not valid. Type the current code from your authenticator app.';

/** private_metadata of the modal (written by us, but it comes back through Slack). */
export const stepUpMetaSchema = z.object({ id: z.string().min(1).max(200) });

/** Six digits; spaces people type in the middle ("123 456") are dropped. */
export const codeSchema = z
  .string()
  .transform((s) => s.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/));

export type StepUpGate =
  | { kind: 'not-needed' }
  | { kind: 'opened' }
  | { kind: 'refused'; message: string }
  /** A passkey confirmation was started: the page to open, shown to the approver only. */
  | { kind: 'passkey'; url: string };

export const PASSKEY_BUTTON = 'withdraw_passkey_open';

/** The button that opens the passkey page (single withdrawals and batches alike). */
export const passkeyButton = (url: string): KnownBlock => ({
  type: 'actions',
  elements: [
    {
      type: 'button',
      action_id: PASSKEY_BUTTON,
      style: 'primary',
      text: { type: 'plain_text', text: 'Confirm with your passkey' },
      url,
    },
  ],
});

/** The private answer to Approve when a passkey is needed: what it is, and the button that opens the page. */
export function passkeyPrompt(r: WithdrawalRequest, url: string): { text: string; blocks: KnownBlock[] } {
  const text =
    `Approving *${outside(amountText(r))}* on ${outside(r.network)} to \`${outside(shorten(r.destination, 8, 6))}\` needs your passkey. ` +
    'The page shows the whole withdrawal; your passkey signs exactly that. The link works once, for 5 minutes.';
  return {
    text,
    blocks: [
      section(text),
      passkeyButton(url),
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'If the page cannot use your passkey (some in-app browsers cannot), copy the link into your system browser.',
          },
        ],
      },
    ],
  };
}

export function stepUpModal(r: WithdrawalRequest, requestedBy: string): View {
  return {
    type: 'modal',
    callback_id: STEP_UP_VIEW,
    private_metadata: JSON.stringify({ id: r.id }),
    title: { type: 'plain_text', text: 'Approve withdrawal' },
    submit: { type: 'plain_text', text: 'Approve' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `Approve *${outside(amountText(r))}* on ${outside(r.network)} to \`${outside(shorten(r.destination, 8, 6))}\`, ` +
          `from client wallet ${outside(r.clientEmail)}, requested by <@${requestedBy}>?\n` +
          'This amount needs a code from your authenticator app.',
      ),
      {
        type: 'input',
        block_id: CODE_BLOCK,
        label: { type: 'plain_text', text: '6-digit code from your authenticator app' },
        element: {
          type: 'plain_text_input',
          action_id: CODE_ACTION,
          max_length: 12,
          placeholder: { type: 'plain_text', text: '123456' },
        },
      },
    ],
  };
}

/** What one confirmation is for: a withdrawal, or a whole batch payout (src/slack/batch/step-up.ts). */
export interface ConfirmTarget {
  need: StepUpNeed;
  /** Words for the refusal: "this withdrawal", "this batch payout". */
  what: string;
  /** Why this person may not approve it now (asked before any code or passkey): undefined when they may. */
  refusal(): Promise<string | undefined>;
  /** Starts a passkey confirmation bound to it: the page's URL. */
  startPasskey(): Promise<string>;
  /** The code modal for it. */
  modal(): View;
}

/**
 * Whether this click needs a code, and if so: the refusal to show, or the modal opened.
 * `client` is absent only where no modal can be opened (then a code-sized request is refused).
 */
export async function stepUpGate(
  deps: CommandDeps,
  o: { requestId: string; user: string; triggerId: string | undefined; client: App['client'] | undefined },
): Promise<StepUpGate> {
  const r = deps.withdrawals.get(o.requestId);
  // The value the decider judges the approval at (the policy price now), so the button asks for a code exactly when it will.
  const need = r ? stepUpNeed(deps.policy.current(), r.currency, r.amount, deps.withdrawals.valueForRules(r)) : 'none';
  if (!r || need === 'none') return { kind: 'not-needed' };
  return confirmationGate(deps, o, {
    need,
    what: 'this withdrawal',
    refusal: async () => {
      const refused = await deps.withdrawals.checkDecision(r.id, o.user, 'approve');
      return refused && !refused.ok ? refused.message : undefined;
    },
    startPasskey: async () => (await deps.passkeys.confirmation.start(r.id, o.user)).url,
    modal: () => stepUpModal(r, r.requester),
  });
}

/** The route of one confirmation, whatever it is for: a passkey, a code, or why neither can be asked for. */
export async function confirmationGate(
  deps: CommandDeps,
  o: { user: string; triggerId: string | undefined; client: App['client'] | undefined },
  target: ConfirmTarget,
): Promise<StepUpGate> {
  const { need } = target;
  if (need === 'none') return { kind: 'not-needed' };
  // The rules first: someone who may not approve this is told why, not asked for a code.
  const refused = await target.refusal();
  if (refused) return { kind: 'refused', message: refused };
  const from = deps.passkeys.confirmation.usableFrom(o.user);
  const usable = from !== undefined && from <= deps.now();
  const status = deps.stepUp.status(o.user);
  // A passkey where the policy asks for one, and wherever its holder can use it (it proves more than a code).
  if (need === 'passkey' || usable) {
    if (from === undefined) return { kind: 'refused', message: NO_PASSKEY_WORDS };
    if (!usable) return { kind: 'refused', message: passkeyTooNewWords(utcMinute(from)) };
    return { kind: 'passkey', url: await target.startPasskey() };
  }
  // A code is enough here; a passkey still in its waiting time says so when no code is set up.
  if (from !== undefined && status.state !== 'active')
    return { kind: 'refused', message: passkeyTooNewWords(utcMinute(from)) };
  if (status.state !== 'active')
    return {
      kind: 'refused',
      message:
        `Approving ${target.what} needs a code from an authenticator app, and you have not set one up yet: ` +
        'open the Treasury app’s Home tab, press “Set up authenticator codes” and scan the QR code with your authenticator app ' +
        '(or set up a passkey with /treasury passkey). Then press Approve again.',
    };
  if (status.lockedUntil !== undefined)
    return {
      kind: 'refused',
      message: lockedWords(status.lockedUntil, deps.now()),
    };
  if (!o.client || !o.triggerId)
    return { kind: 'refused', message: `Approving ${target.what} needs a code: use the Approve button on its card.` };
  await o.client.views.open({ trigger_id: o.triggerId, view: target.modal() });
  return { kind: 'opened' };
}
