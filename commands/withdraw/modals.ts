/** The withdrawal request form and the reason forms (reject, resolve), and how their fields are read back. */
import type { ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import { z } from 'zod';
import { section } from '../../src/slack/blocks.js';
import { CURRENCIES, NETWORKS } from '../../src/wallet/enums.js';
import type { RequestRule } from '../../src/withdrawals/index.js';

export const VIEWS = {
  request: 'wd_request_modal',
  reject: 'wd_reject_modal',
  resolve: 'wd_resolve_modal',
  /** "Send anyway…" / "Reject…" on a request on hold (an admin's reason). */
  hold: 'wd_hold_modal',
} as const;

export const FIELDS = {
  amount: { block: 'wd_amount', action: 'value' },
  currency: { block: 'wd_currency', action: 'value' },
  network: { block: 'wd_network', action: 'value' },
  destination: { block: 'wd_destination', action: 'value' },
  client: { block: 'wd_client', action: 'value' },
  note: { block: 'wd_note', action: 'value' },
} as const;

/**
 * The form's value line ("≈ $900.00, tier: 1 approval"), under the currency: a context block,
 * rewritten by value-preview.ts as the amount or currency changes. Not `wd_`-prefixed: it is no
 * input, and the submission reads only the `wd_` inputs.
 */
export const VALUE_BLOCK = 'form_value';
export const VALUE_HINT = 'Enter the amount and choose the currency to see its value and the approvals it needs.';

/** The value line as a block (plain text: its words are ours, and nothing in it is a link or a mention). */
export function valueLine(text: string): KnownBlock {
  return { type: 'context', block_id: VALUE_BLOCK, elements: [{ type: 'plain_text', text: text.slice(0, 2000) }] };
}

/**
 * The form's destination check, under the destination: whether it is on the sanctions list or
 * looks like a known address (value-preview.ts rewrites it as the destination or network changes).
 */
export const DESTINATION_CHECK_BLOCK = 'form_destination_check';
export const DESTINATION_HINT =
  'The destination is checked against the OFAC sanctions list and the addresses you pay as you type it.';

export function destinationCheckLine(text: string): KnownBlock {
  return {
    type: 'context',
    block_id: DESTINATION_CHECK_BLOCK,
    elements: [{ type: 'plain_text', text: text.slice(0, 2000) }],
  };
}

/** Where a refusal is shown in the request form: next to the field it is about. */
export const RULE_FIELD: Record<RequestRule, keyof typeof FIELDS> = {
  not_requester: 'amount',
  currency: 'currency',
  network: 'network',
  amount: 'amount',
  decimals: 'amount',
  client_email: 'client',
  destination: 'destination',
  allowlist: 'destination',
  sanctions: 'destination',
  stale_list: 'amount',
  daily_limit: 'amount',
  rolling_limit: 'amount',
  tier: 'amount',
  note: 'note',
  balance: 'amount',
  repeat: 'amount',
};

type Problem = { rule: RequestRule; message: string };

/**
 * A refusal as the form's errors: every problem next to its field, all at once (two about one
 * field, e.g. decimals and tier, read one after the other), each within Slack's limit.
 */
export function fieldErrors(refusal: Problem & { problems?: readonly Problem[] }): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const p of refusal.problems ?? [refusal]) {
    const block = FIELDS[RULE_FIELD[p.rule]].block;
    errors[block] = errors[block] ? `${errors[block]} ${p.message}` : p.message;
  }
  for (const block of Object.keys(errors)) errors[block] = errors[block]!.slice(0, 2000);
  return errors;
}

/** The note field's hint: when a note is required, in amounts ("Required above 1,000.00 USDT"). */
export function noteHint(noteAbove: readonly string[]): string {
  return noteAbove.length
    ? `What the payout is for (the approvers read it). Required above ${noteAbove.join(', or ')}.`.slice(0, 2000)
    : 'What the payout is for (the approvers read it).';
}

function input(
  field: keyof typeof FIELDS,
  label: string,
  element: Record<string, unknown>,
  optional = false,
  hint?: string,
  dispatch = false,
): KnownBlock {
  return {
    type: 'input',
    block_id: FIELDS[field].block,
    // The amount and currency send a block action as they change, for the value line (value-preview.ts).
    ...(dispatch ? { dispatch_action: true } : {}),
    optional,
    label: { type: 'plain_text', text: label },
    element: { action_id: FIELDS[field].action, ...element },
    ...(hint ? { hint: { type: 'plain_text', text: hint } } : {}),
  } as KnownBlock;
}

const options = (names: string[]) => names.map((n) => ({ text: { type: 'plain_text' as const, text: n }, value: n }));

/** Values to show in the form when it opens (a new request with the details of one that was never executed). */
export interface RequestPrefill {
  amount: string;
  currency: string;
  network: string;
  destination: string;
  clientEmail: string;
  note: string;
}

const option = (n: string) => ({ text: { type: 'plain_text' as const, text: n }, value: n });

/** The form's note field holds this much; a one-line /withdraw note may be longer (up to 1,000). */
const NOTE_FIELD_MAX = 500;
/**
 * Slack refuses a view whose initial value is longer than its field: the prefill is cut to fit,
 * counted in UTF-16 units (never more than Slack could count) and never inside a character.
 */
function fitNote(note: string | undefined): string | undefined {
  if (!note || note.length <= NOTE_FIELD_MAX) return note;
  let out = '';
  for (const ch of note) {
    if (out.length + ch.length > NOTE_FIELD_MAX) break;
    out += ch;
  }
  return out;
}

/** What the request form carries in private_metadata: the request it repeats, when opened from its card. */
export const requestMetaSchema = z.object({ repeatOf: z.string().min(1).max(200) });

/**
 * `repeatOf`: opened with "New request with the same details" on that request (the submission records it).
 * `noteAbove`: the policy's amounts above which a note is required (`noteThresholds`), for the note's hint.
 */
export function requestModal(
  prefill?: RequestPrefill,
  repeatOf?: string,
  noteAbove: readonly string[] = [],
  valueText: string = VALUE_HINT,
): View {
  const initial = (value: string | undefined) => (value ? { initial_value: value } : {});
  const selected = (value: string | undefined) => (value ? { initial_option: option(value) } : {});
  return {
    type: 'modal',
    callback_id: VIEWS.request,
    ...(repeatOf ? { private_metadata: JSON.stringify({ repeatOf }) } : {}),
    title: { type: 'plain_text', text: 'Request a withdrawal' },
    submit: { type: 'plain_text', text: 'Request approval' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section('Nothing is sent until the policy’s approvers approve it on the card in the approvals channel.'),
      input(
        'amount',
        'Amount',
        {
          type: 'plain_text_input',
          placeholder: { type: 'plain_text', text: 'e.g. 250.50' },
          dispatch_action_config: { trigger_actions_on: ['on_character_entered', 'on_enter_pressed'] },
          ...initial(prefill?.amount),
        },
        false,
        undefined,
        true,
      ),
      input(
        'currency',
        'Currency',
        { type: 'static_select', options: options(CURRENCIES.map((c) => c.name)), ...selected(prefill?.currency) },
        false,
        undefined,
        true,
      ),
      valueLine(valueText),
      input(
        'network',
        'Network',
        { type: 'static_select', options: options(NETWORKS.map((n) => n.name)), ...selected(prefill?.network) },
        false,
        undefined,
        true,
      ),
      input(
        'destination',
        'Destination address',
        {
          type: 'plain_text_input',
          dispatch_action_config: { trigger_actions_on: ['on_character_entered', 'on_enter_pressed'] },
          ...initial(prefill?.destination),
        },
        false,
        'Checked against the network’s address format and the allowlist.',
        true,
      ),
      destinationCheckLine(DESTINATION_HINT),
      input(
        'client',
        'Client e-mail',
        { type: 'email_text_input', ...initial(prefill?.clientEmail) },
        false,
        'The client whose generated wallet the funds leave from.',
      ),
      input(
        'note',
        'Note for the approvers',
        { type: 'plain_text_input', multiline: true, max_length: NOTE_FIELD_MAX, ...initial(fitNote(prefill?.note)) },
        true,
        noteHint(noteAbove),
      ),
    ],
  };
}

export function reasonModal(callbackId: string, title: string, label: string, metadata: string, intro: string): View {
  return {
    type: 'modal',
    callback_id: callbackId,
    private_metadata: metadata,
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: 'Confirm' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(intro),
      {
        type: 'input',
        block_id: 'reason',
        label: { type: 'plain_text', text: label },
        element: { type: 'plain_text_input', action_id: 'value', multiline: true, min_length: 3, max_length: 500 },
      },
    ],
  };
}

/** What the resolve modal carries in private_metadata (written by us, but it comes back through Slack). */
export const resolveMetaSchema = z.object({ id: z.string().min(1).max(200), outcome: z.enum(['sent', 'not_sent']) });

/** What the hold modal carries in private_metadata: the request and the admin's choice. */
export const holdMetaSchema = z.object({ id: z.string().min(1).max(200), action: z.enum(['release', 'reject']) });

type StateValues = ViewSubmitAction['view']['state']['values'];

export function readField(values: StateValues, field: keyof typeof FIELDS): string {
  const v = values[FIELDS[field].block]?.[FIELDS[field].action];
  return (v?.value ?? v?.selected_option?.value ?? '').trim();
}

/** A reason form's text. */
export function readReason(values: StateValues): string {
  return values.reason?.value?.value?.trim() ?? '';
}
