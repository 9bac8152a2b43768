/**
 * Approve on a batch payout's card above `withdrawals.step_up_above` or `passkey_above` (judged on
 * the batch's total): the same route as a single withdrawal's (src/slack/step-up-approve.ts), once
 * per approver. A code is asked for in a modal that carries the batch and its file's sha256; a
 * passkey is confirmed on the page, whose challenge binds the batch, its file, its total and the
 * policy version. Whether the confirmation counts (this file, a passkey where only a passkey will
 * do) is the batch service's decision (src/batches/decide.ts); this only routes.
 */
import type { App } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import { z } from 'zod';
import type { Batch } from '../../batches/index.js';
import { outside } from '../../format/outside.js';
import { formatAmount } from '../../format/amount.js';
import { formatFiat } from '../../format/fiat.js';
import { section } from '../blocks.js';
import type { CommandDeps } from '../deps.js';
import { CODE_ACTION, CODE_BLOCK, confirmationGate, passkeyButton, type StepUpGate } from '../step-up-approve.js';

export const BATCH_STEP_UP_VIEW = 'batch_step_up';

/** private_metadata of the code modal: the batch, and the file the code is confirmed for. */
export const batchStepUpMetaSchema = z.object({
  id: z.string().min(1).max(200),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** "60,000 USDT (≈ $60,000.00)": what the approver confirms, in the words of the card. */
export function batchTotalWords(b: Batch): string {
  const totals = Object.entries(b.totals.perCurrency)
    .map(([c, a]) => formatAmount(a, c))
    .join(', ');
  return b.totals.value.kind === 'known' ? `${totals} (≈ ${formatFiat(b.totals.value.usd)})` : totals;
}

export function batchStepUpModal(b: Batch): View {
  return {
    type: 'modal',
    callback_id: BATCH_STEP_UP_VIEW,
    private_metadata: JSON.stringify({ id: b.id, sha256: b.sha256 }),
    title: { type: 'plain_text', text: 'Approve batch payout' },
    submit: { type: 'plain_text', text: 'Approve' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `Approve the batch payout of *${b.rows.length} rows*, *${outside(batchTotalWords(b))}* in total, ` +
          `from the file ${outside(b.fileName, 100)}, requested by <@${b.requester}>?\n` +
          'Its total needs a code from your authenticator app. The code approves this file only.',
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

/** The private answer to Approve when a passkey confirms it: what it is, and the button that opens the page. */
export function batchPasskeyPrompt(b: Batch, url: string): { text: string; blocks: KnownBlock[] } {
  const text =
    `Approving the batch payout of *${b.rows.length} rows* (*${outside(batchTotalWords(b))}*) needs your passkey. ` +
    'The page shows the batch; your passkey signs exactly that file and total. The link works once, for 5 minutes.';
  return {
    text,
    blocks: [section(text), passkeyButton(url)],
  };
}

/** Whether this click on a batch's Approve needs a confirmation, and if so the route it takes. */
export async function batchStepUpGate(
  deps: CommandDeps,
  o: { batchId: string; user: string; triggerId: string | undefined; client: App['client'] | undefined },
): Promise<StepUpGate> {
  const batches = deps.batches;
  const b = batches?.get(o.batchId);
  if (!batches || !b) return { kind: 'not-needed' };
  // Judged now, as the approval will be: the total's value may have crossed a threshold since it was requested.
  const checked = await batches.check(b.id, o.user);
  return confirmationGate(deps, o, {
    need: checked.need,
    what: 'this batch payout',
    refusal: async () => checked.refusal?.message,
    startPasskey: async () => (await deps.passkeys.confirmation.startBatch(b.id, o.user)).url,
    modal: () => batchStepUpModal(b),
  });
}
