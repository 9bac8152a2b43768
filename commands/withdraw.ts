/**
 * /withdraw: request a withdrawal (a modal, or one line), and the approval card's buttons.
 * Every decision is the withdrawal service's; this file only asks it and shows the answer.
 */
import type { App, BlockAction, ButtonAction, RespondFn, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock, View } from '@slack/types';
import { z } from 'zod';
import { section } from '../src/slack/blocks.js';
import { guarded } from '../src/slack/guard.js';
import { storeUnavailableMessage } from '../src/slack/user-errors.js';
import { StoreUnavailableError } from '../src/store/index.js';
import { words } from '../src/slack/text.js';
import { refusal } from '../src/slack/access.js';
import { CURRENCIES, NETWORKS } from '../src/wallet/enums.js';
import type { DecisionOutcome, RequestInput, RequestRule } from '../src/withdrawals/index.js';
import { ACTIONS, amountText } from './withdraw-card.js';
import type { CommandDeps } from './deps.js';

export const name = '/withdraw';
export const VIEWS = { request: 'wd_request_modal', reject: 'wd_reject_modal', resolve: 'wd_resolve_modal' } as const;
const MAX_ONE_LINE = 1_000;
const USAGE = 'Usage: `/withdraw` opens a form, or `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`';

/** Where a refusal is shown in the modal: next to the field it is about. */
const RULE_FIELD: Record<RequestRule, keyof typeof FIELDS> = {
  not_requester: 'amount',
  currency: 'currency',
  network: 'network',
  amount: 'amount',
  decimals: 'amount',
  client_email: 'client',
  destination: 'destination',
  allowlist: 'destination',
  daily_limit: 'amount',
  tier: 'amount',
};

const FIELDS = {
  amount: { block: 'wd_amount', action: 'value' },
  currency: { block: 'wd_currency', action: 'value' },
  network: { block: 'wd_network', action: 'value' },
  destination: { block: 'wd_destination', action: 'value' },
  client: { block: 'wd_client', action: 'value' },
  note: { block: 'wd_note', action: 'value' },
} as const;

function input(field: keyof typeof FIELDS, label: string, element: Record<string, unknown>, optional = false, hint?: string): KnownBlock {
  return {
    type: 'input',
    block_id: FIELDS[field].block,
    optional,
    label: { type: 'plain_text', text: label },
    element: { action_id: FIELDS[field].action, ...element },
    ...(hint ? { hint: { type: 'plain_text', text: hint } } : {}),
  } as KnownBlock;
}

const options = (names: string[]) => names.map((n) => ({ text: { type: 'plain_text' as const, text: n }, value: n }));

export function requestModal(): View {
  return {
    type: 'modal',
    callback_id: VIEWS.request,
    title: { type: 'plain_text', text: 'Request a withdrawal' },
    submit: { type: 'plain_text', text: 'Request approval' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section('Nothing is sent until the policy’s approvers approve it on the card in the approvals channel.'),
      input('amount', 'Amount', { type: 'plain_text_input', placeholder: { type: 'plain_text', text: 'e.g. 250.50' } }),
      input('currency', 'Currency', { type: 'static_select', options: options(CURRENCIES.map((c) => c.name)) }),
      input('network', 'Network', { type: 'static_select', options: options(NETWORKS.map((n) => n.name)) }),
      input('destination', 'Destination address', { type: 'plain_text_input' }, false, 'Checked against the network’s address format and the allowlist.'),
      input('client', 'Client e-mail', { type: 'email_text_input' }, false, 'The client whose generated wallet the funds leave from.'),
      input('note', 'Note for the approvers', { type: 'plain_text_input', multiline: true, max_length: 500 }, true),
    ],
  };
}

function reasonModal(callbackId: string, title: string, label: string, metadata: string, intro: string): View {
  return {
    type: 'modal',
    callback_id: callbackId,
    private_metadata: metadata,
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: 'Confirm' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(intro),
      { type: 'input', block_id: 'reason', label: { type: 'plain_text', text: label }, element: { type: 'plain_text_input', action_id: 'value', multiline: true, min_length: 3, max_length: 500 } },
    ],
  };
}

/** What the resolve modal carries in private_metadata (written by us, but it comes back through Slack). */
const resolveMetaSchema = z.object({ id: z.string().min(1).max(200), outcome: z.enum(['sent', 'not_sent']) });

type StateValues = ViewSubmitAction['view']['state']['values'];

function readField(values: StateValues, field: keyof typeof FIELDS): string {
  const v = values[FIELDS[field].block]?.[FIELDS[field].action];
  return (v?.value ?? v?.selected_option?.value ?? '').trim();
}

export function parseOneLine(text: string): { ok: true; input: RequestInput } | { ok: false; error: string } {
  const w = words(text);
  if (w.length < 5) return { ok: false, error: `expected at least 5 values (amount, currency, network, destination, client e-mail), got ${w.length}` };
  const [amount, currency, network, destination, clientEmail, ...note] = w as [string, string, string, string, string, ...string[]];
  return { ok: true, input: { amount, currency, network, destination, clientEmail, note: note.join(' ') } };
}

/** What a modal shows next to a field when the work failed: the disk's words when it was the disk. */
function failureText(err: unknown, otherwise: string): string {
  return err instanceof StoreUnavailableError ? storeUnavailableMessage(err) : otherwise;
}

async function ephemeral(respond: RespondFn, text: string): Promise<void> {
  await respond({ response_type: 'ephemeral', replace_original: false, text });
}

export function register(app: App, deps: CommandDeps): void {
  const { withdrawals } = deps;

  /** A reason modal's submission: the decision's refusal goes next to the field; a failure never leaves Slack waiting. */
  async function submitted(ack: (r?: ViewResponseAction) => Promise<void>, what: string, decide: () => Promise<DecisionOutcome>): Promise<void> {
    let outcome: DecisionOutcome;
    try {
      outcome = await decide();
    } catch (err) {
      deps.logger.error({ err }, `withdrawal ${what} failed`);
      return ack({ response_action: 'errors', errors: { reason: failureText(err, 'Something went wrong on our side; nothing was changed. Try again.') } });
    }
    if (!outcome.ok) return ack({ response_action: 'errors', errors: { reason: outcome.message.slice(0, 2000) } });
    await ack();
  }

  app.command(name, async ({ command, ack, respond, client }) => {
    await ack();
    await guarded(deps.logger, respond, 'Withdrawal request', async () => {
      const refused = await refusal(deps.policy, 'requesters', command.user_id, deps.groups);
      if (refused) return ephemeral(respond, refused);
      if (!command.text.trim()) {
        await client.views.open({ trigger_id: command.trigger_id, view: requestModal() });
        return;
      }
      if (command.text.trim().toLowerCase() === 'help') return ephemeral(respond, USAGE);
      // Five values and a note (the form allows 500 characters of note) fit well within this; a wall of text is not echoed back.
      if (command.text.length > MAX_ONE_LINE) {
        return ephemeral(respond, `:warning: That is ${command.text.length.toLocaleString('en')} characters; a one-line request takes at most ${MAX_ONE_LINE} (the note at most 500).\n${USAGE}`);
      }
      const parsed = parseOneLine(command.text);
      if (!parsed.ok) return ephemeral(respond, `:warning: ${parsed.error}\n${USAGE}`);
      const outcome = await withdrawals.request(parsed.input, command.user_id);
      if (!outcome.ok) return ephemeral(respond, `:no_entry: Not requested (${outcome.rule.replace('_', ' ')}): ${outcome.message}`);
      await ephemeral(
        respond,
        `:inbox_tray: Requested ${amountText(outcome.request)} on ${outcome.request.network}: the approval card is in <#${deps.policy.channels.approvals}>. Request \`${outcome.request.id}\`.`,
      );
    });
  });

  app.view<ViewSubmitAction>(VIEWS.request, async ({ ack, body, view }) => {
    const v = view.state.values;
    const input: RequestInput = {
      // One modal asks for one payout, however many times it is submitted.
      idempotencyKey: `view:${view.id}`,
      amount: readField(v, 'amount'),
      currency: readField(v, 'currency'),
      network: readField(v, 'network'),
      destination: readField(v, 'destination'),
      clientEmail: readField(v, 'client'),
      note: readField(v, 'note'),
    };
    let outcome;
    try {
      outcome = await withdrawals.request(input, body.user.id);
    } catch (err) {
      deps.logger.error({ err }, 'withdrawal request failed');
      return void (await ack({ response_action: 'errors', errors: { [FIELDS.amount.block]: failureText(err, 'Something went wrong on our side; nothing was requested. Try again.') } }));
    }
    if (!outcome.ok) {
      return void (await ack({ response_action: 'errors', errors: { [FIELDS[RULE_FIELD[outcome.rule]].block]: outcome.message.slice(0, 2000) } }));
    }
    await ack();
  });

  app.action<BlockAction<ButtonAction>>(ACTIONS.approve, async ({ ack, body, action, respond }) => {
    await ack();
    await guarded(deps.logger, respond, 'Approval', async () => {
      const outcome = await withdrawals.approve(action.value ?? '', body.user.id);
      if (!outcome.ok) await ephemeral(respond, `:no_entry: ${outcome.message}`);
    });
  });

  app.action<BlockAction<ButtonAction>>(ACTIONS.reject, async ({ ack, body, action, client, respond }) => {
    await ack();
    await guarded(deps.logger, respond, 'Rejection', async () => {
      // Before asking for a reason: someone who may not reject is told so at once.
      const refused = await withdrawals.checkDecision(action.value ?? '', body.user.id, 'reject');
      if (refused && !refused.ok) return ephemeral(respond, `:no_entry: ${refused.message}`);
      const r = withdrawals.get(action.value ?? '')!;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: reasonModal(VIEWS.reject, 'Reject withdrawal', 'Reason (the requester sees it)', r.id, `Reject ${amountText(r)} on ${r.network} to \`${r.destination}\`?`),
      });
    });
  });

  app.view<ViewSubmitAction>(VIEWS.reject, async ({ ack, body, view }) => {
    const reason = view.state.values.reason?.value?.value?.trim() ?? '';
    await submitted(ack, 'rejection', () => withdrawals.reject(view.private_metadata, body.user.id, reason));
  });

  for (const [actionId, outcome] of [
    [ACTIONS.resolveSent, 'sent'],
    [ACTIONS.resolveNotSent, 'not_sent'],
  ] as const) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client, respond }) => {
      await ack();
      await guarded(deps.logger, respond, 'Resolution', async () => {
        const refused = await refusal(deps.policy, 'admins', body.user.id, deps.groups);
        if (refused) return ephemeral(respond, refused);
        const r = withdrawals.get(action.value ?? '');
        if (!r || r.state !== 'unknown') return ephemeral(respond, ':information_source: This request is not waiting for a resolution.');
        const intro =
          outcome === 'sent'
            ? `Record that ${amountText(r)} to \`${r.destination}\` *was sent* (reference \`${r.merchantReference}\`)? Check the wallet service first.`
            : `Record that ${amountText(r)} to \`${r.destination}\` *was not sent* (reference \`${r.merchantReference}\`)? Check the wallet service first: a new request will be needed.`;
        await client.views.open({
          trigger_id: body.trigger_id,
          view: reasonModal(VIEWS.resolve, 'Resolve withdrawal', 'What you checked (kept in the audit log)', JSON.stringify({ id: r.id, outcome }), intro),
        });
      });
    });
  }

  app.view<ViewSubmitAction>(VIEWS.resolve, async ({ ack, body, view }) => {
    let meta: z.infer<typeof resolveMetaSchema>;
    try {
      meta = resolveMetaSchema.parse(JSON.parse(view.private_metadata ?? ''));
    } catch {
      return void (await ack({ response_action: 'errors', errors: { reason: 'This form is out of date; click the button on the card again.' } }));
    }
    const note = view.state.values.reason?.value?.value?.trim() ?? '';
    const refused = await refusal(deps.policy, 'admins', body.user.id, deps.groups);
    if (refused) return void (await ack({ response_action: 'errors', errors: { reason: refused } }));
    await submitted(ack, 'resolution', () => withdrawals.resolveUnknown(meta.id, body.user.id, meta.outcome === 'sent' ? 'sent' : 'not_sent', note));
  });
}
