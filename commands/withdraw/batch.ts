/**
 * /withdraw batch: a form taking a CSV file (Slack's file_input) or a pasted list; the file is
 * read with files.info and its url_private_download (the bot token, sent to Slack's file host
 * only). The form answers at once ("Checking…") and then shows every problem of the file, or that
 * the batch was requested and where its card is. The card's buttons: Approve and Reject (the batch
 * service decides who may), Stop the rest (admins). Every decision is the batch service's.
 */
import type { App, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import axios from 'axios';
import { z } from 'zod';
import { errorLines, MAX_BYTES, MAX_ROWS, type SubmitOutcome } from '../../src/batches/index.js';
import { outside } from '../../src/format/outside.js';
import { formatAmount } from '../../src/withdrawals/index.js';
import { packLines, section } from '../../src/slack/blocks.js';
import { guarded } from '../../src/slack/guard.js';
import type { CommandDeps } from '../deps.js';
import type { ButtonArgs } from './approve.js';
import { ephemeral } from './replies.js';
import { batchPasskeyPrompt, batchStepUpGate, batchStepUpMetaSchema } from '../../src/slack/batch/step-up.js';
import { CODE_ACTION, CODE_BLOCK, codeSchema, INVALID_CODE } from '../../src/slack/step-up-approve.js';

export const BATCH_VIEW = 'wd_batch_modal';
const FILE = 'wd_batch_file';
const PASTE = 'wd_batch_paste';
const REPEAT = 'wd_batch_repeat';
/** Slack's plain_text_input holds at most 3,000 characters: a short list; a file for the rest. */
const PASTE_MAX = 3000;

const modal = (blocks: KnownBlock[], submit = true): View => ({
  type: 'modal',
  callback_id: BATCH_VIEW,
  title: { type: 'plain_text', text: 'Batch payout' },
  ...(submit ? { submit: { type: 'plain_text', text: 'Check and request' } } : {}),
  close: { type: 'plain_text', text: submit ? 'Cancel' : 'Close' },
  blocks,
});

export function batchModal(): View {
  return modal([
    section(
      `Pay many clients from one CSV file. Columns (a header row, any order): \`address, amount, currency, network, client_email\`, and optionally \`note, label, reference\`. At most ${MAX_ROWS.toLocaleString('en')} rows and 1 MB. Every row is checked before anything is requested; the batch is approved once, on its total.`,
    ),
    {
      type: 'input',
      block_id: FILE,
      optional: true,
      label: { type: 'plain_text', text: 'CSV file' },
      element: { type: 'file_input', action_id: 'value', filetypes: ['csv', 'txt'], max_files: 1 },
    } as unknown as KnownBlock,
    {
      type: 'input',
      block_id: PASTE,
      optional: true,
      label: { type: 'plain_text', text: 'Or paste a short list (header row first)' },
      element: { type: 'plain_text_input', action_id: 'value', multiline: true, max_length: PASTE_MAX },
    },
    {
      type: 'input',
      block_id: REPEAT,
      optional: true,
      label: { type: 'plain_text', text: 'Paying the same file again?' },
      element: {
        type: 'checkboxes',
        action_id: 'value',
        options: [{ text: { type: 'plain_text', text: 'I mean to pay this exact file again' }, value: 'yes' }],
      },
    },
  ]);
}

const valuesSchema = z.object({
  [FILE]: z
    .object({
      value: z.object({
        files: z
          .array(z.object({ id: z.string().max(40) }))
          .max(1)
          .optional(),
      }),
    })
    .optional(),
  [PASTE]: z.object({ value: z.object({ value: z.string().max(PASTE_MAX).nullish() }) }).optional(),
  [REPEAT]: z
    .object({ value: z.object({ selected_options: z.array(z.object({ value: z.string() })).optional() }) })
    .optional(),
});

const fileInfoSchema = z.object({
  file: z.object({
    name: z.string().max(255),
    size: z.number().int().nonnegative(),
    url_private_download: z.string().url(),
  }),
});

class Unreadable extends Error {}

/** The file's text, read with the bot token from Slack's own file host (never sent anywhere else). */
async function readFile(client: App['client'], id: string): Promise<{ text: string; name: string }> {
  const parsed = fileInfoSchema.safeParse(await client.files.info({ file: id }));
  if (!parsed.success) throw new Unreadable('Slack did not describe the file; try uploading it again.');
  const { name, size, url_private_download: url } = parsed.data.file;
  if (size > MAX_BYTES) throw new Unreadable(`${name} is over 1 MB; split it into files of at most ${MAX_ROWS} rows.`);
  const allowed = new Set(['https://files.slack.com', new URL(client.slackApiUrl).origin]);
  if (!allowed.has(new URL(url).origin)) throw new Unreadable('The file is not on Slack’s file host; it was not read.');
  const res = await axios.get<string>(url, {
    headers: { Authorization: `Bearer ${client.token}` },
    responseType: 'text',
    maxContentLength: MAX_BYTES,
    maxRedirects: 0,
    timeout: 10_000,
    validateStatus: (s) => s === 200,
  });
  return { text: String(res.data), name };
}

function outcomeView(out: SubmitOutcome, approvals: string): View {
  if (out.ok) {
    const b = out.batch;
    const totals = Object.entries(b.totals.perCurrency)
      .map(([c, a]) => formatAmount(a, c))
      .join(', ');
    return modal(
      [
        section(
          `⏳ Requested · ${b.rows.length} rows (${totals}) waiting for ${b.tier.approvals} approval${b.tier.approvals === 1 ? '' : 's'}: the card is in <#${approvals}>. Nothing is sent before then.`,
        ),
      ],
      false,
    );
  }
  if (out.kind === 'errors')
    return modal(
      [
        section(
          `:no_entry: Not requested: ${out.errors.length} problem${out.errors.length === 1 ? '' : 's'} in the file. Fix them (or remove those rows) and submit it again.`,
        ),
        // The file's own text (a column name, an address) escaped before it reaches mrkdwn.
        ...packLines(errorLines(out.errors, 40, (s) => outside(s, 300))).slice(0, 40),
      ],
      false,
    );
  if (out.kind === 'repeat')
    return modal(
      [
        section(
          `:warning: Not requested: ${out.message} If you mean to, run \`/withdraw batch\` again, choose the file and tick “I mean to pay this exact file again”.`,
        ),
      ],
      false,
    );
  return modal([section(`:no_entry: Not requested: ${out.message}`)], false);
}

type SubmitArgs = Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'> & { client: App['client'] };

export function batchSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view, client }: SubmitArgs): Promise<void> => {
    const values = valuesSchema.safeParse(view.state.values);
    if (!values.success)
      return void (await ack({
        response_action: 'errors',
        errors: { [PASTE]: 'This form is out of date; open it again.' },
      }));
    const fileId = values.data[FILE]?.value.files?.[0]?.id;
    const pasted = values.data[PASTE]?.value.value?.trim() ?? '';
    if (!fileId && !pasted)
      return void (await ack({
        response_action: 'errors',
        errors: { [PASTE]: 'Choose a CSV file, or paste a list.' },
      }));
    const batches = deps.batches;
    if (!batches)
      return void (await ack({ response_action: 'errors', errors: { [PASTE]: 'Batch payouts are not available.' } }));
    // Reading and checking a file of 1,000 rows may take longer than Slack waits: answered now, shown when done.
    await ack({ response_action: 'update', view: modal([section('⏳ Checking every row…')], false) });
    let shown: View;
    try {
      const file = fileId ? await readFile(client, fileId) : { text: pasted, name: 'pasted list' };
      const confirmRepeat = values.data[REPEAT]?.value.selected_options?.some((o) => o.value === 'yes') ?? false;
      const out = await batches.submit({ text: file.text, fileName: file.name, confirmRepeat }, body.user.id);
      shown = outcomeView(out, deps.policy.current().channels.approvals);
    } catch (err) {
      if (!(err instanceof Unreadable)) deps.logger.error({ err }, 'batch payout submission failed');
      shown = modal(
        [
          section(
            `:no_entry: Not requested: ${err instanceof Unreadable ? err.message : 'the file could not be read or checked; nothing was requested. Try again.'}`,
          ),
        ],
        false,
      );
    }
    await client.views.update({ view_id: view.id, view: shown }).catch((err: unknown) => {
      deps.logger.warn({ err }, 'could not show the batch payout check');
    });
  };
}

export function batchButton(deps: CommandDeps, what: 'approve' | 'reject' | 'stop') {
  return async ({ ack, body, action, respond, client }: ButtonArgs & { client?: App['client'] }): Promise<void> => {
    await ack();
    await guarded(deps.logger, respond, 'Batch payout', async () => {
      const batches = deps.batches;
      if (!batches) return ephemeral(respond, ':no_entry: Batch payouts are not available.');
      const id = action.value ?? '';
      if (what === 'approve') {
        // Above step_up_above / passkey_above on the batch's total: a code modal, or the passkey page, bound to its file.
        const gate = await batchStepUpGate(deps, {
          batchId: id,
          user: body.user.id,
          triggerId: body.trigger_id,
          client,
        });
        if (gate.kind === 'refused') return ephemeral(respond, `:no_entry: ${gate.message}`);
        if (gate.kind === 'opened') return;
        const b = batches.get(id);
        if (gate.kind === 'passkey' && b)
          return void (await respond({
            response_type: 'ephemeral',
            replace_original: false,
            ...batchPasskeyPrompt(b, gate.url),
          }));
      }
      const out =
        what === 'approve'
          ? await batches.approve(id, body.user.id)
          : what === 'reject'
            ? await batches.reject(id, body.user.id, 'rejected on the card')
            : await batches.stop(id, body.user.id);
      if (!out.ok) return ephemeral(respond, `:no_entry: ${out.message}`);
    });
  };
}

/**
 * The code modal of a batch submitted: the code checked (single use, lockout) only once the person
 * may approve this batch and the modal's file is still this batch's; then the approval, bound to the
 * file the modal named. Every refusal is shown next to the code field.
 */
export function batchStepUpSubmitted(deps: CommandDeps) {
  return async ({ ack, body, view }: Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'>) => {
    const inline = (text: string) => ack({ response_action: 'errors', errors: { [CODE_BLOCK]: text.slice(0, 2000) } });
    const user = body.user.id;
    try {
      const meta = batchStepUpMetaSchema.safeParse(safeJson(view.private_metadata));
      if (!meta.success || !deps.batches)
        return await inline('This form is out of date. Close it and press Approve on the card again.');
      const code = codeSchema.safeParse(view.state.values[CODE_BLOCK]?.[CODE_ACTION]?.value ?? '');
      if (!code.success) return await inline(INVALID_CODE);
      // A code is not spent on a batch this person cannot approve, nor on another file's modal. Only the
      // stored batch is read here: the approval below judges the rows once (two judgements of 1,000 rows
      // came close to the 3 seconds Slack gives this answer), and its refusal is shown at the code.
      const refused = await deps.batches.precheck(meta.data.id, user, meta.data.sha256);
      if (refused) return await inline(refused.message);
      const checked = await deps.stepUp.verify(user, code.data, meta.data.id);
      if (!checked.ok) return await inline(checked.message);
      const out = await deps.batches.approve(meta.data.id, user, { stepUpFor: meta.data.sha256, proof: 'verified' });
      if (!out.ok) return await inline(out.message);
      await ack();
    } catch (err) {
      deps.logger.error({ err }, 'batch payout step-up approval failed');
      await inline('Something went wrong on our side; nothing was approved. Try again.');
    }
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
