/**
 * The request form's value line, kept up to date while the form is filled (issue 24, point 5):
 * the amount and currency inputs send a block action as they change (`dispatch_action`), and
 * the form is updated with "≈ $900.00, up to $1,000.00: 1 approval" under the currency. The value comes
 * from the price cache only (never a network call on the ack path) and the tier from the same
 * rule as the decider (`selectTier` with `valueAt`), so the line says what the submission will
 * decide with the prices of this moment.
 *
 * The update carries the view's hash: when the person typed on meanwhile, Slack answers
 * `hash_conflict` and nothing is written (that newer input sent its own action, whose update
 * carries the newer hash). The inputs keep their block and action ids (`wd_amount`/`value`):
 * the submission reads them as before, and this listener is matched on the block ids.
 */
import type { App, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { z } from 'zod';
import { currentAndJudged } from '../../src/format/judged.js';
import { tierWords } from '../../src/format/tier.js';
import { classifySlackError } from '../../src/outbox/slack-errors.js';
import type { Policy } from '../../src/policy/schema.js';
import { valueAt, type PriceSnapshot } from '../../src/prices/index.js';
import { CURRENCIES, lookup } from '../../src/wallet/enums.js';
import { parseAmount, selectTier } from '../../src/withdrawals/index.js';
import type { CommandDeps } from '../deps.js';
import { FIELDS, VALUE_BLOCK, VALUE_HINT, VIEWS, valueLine } from './modals.js';

/** The inputs whose changes update the value line (their action id stays `value`, as the submission reads it). */
export const PREVIEW_ACTION = {
  block_id: new RegExp(`^(${FIELDS.amount.block}|${FIELDS.currency.block})$`),
  action_id: FIELDS.amount.action,
} as const;

/** The value line's words for what the form holds now: pure (the policy and a price snapshot are facts). */
export function previewText(policy: Policy, prices: PriceSnapshot, amountTyped: string, currencyTyped: string): string {
  const typed = amountTyped.trim();
  if (!typed) return VALUE_HINT;
  const amount = parseAmount(typed);
  // A value of a misread number would mislead: nothing is valued until the amount is a number.
  if (!amount.ok) return 'Enter a number (e.g. 250.50) to see its value and the approvals it needs.';
  const currency = lookup(CURRENCIES, currencyTyped);
  if (!currency) return 'Choose the currency to see the value and the approvals it needs.';
  const valuation = valueAt(prices, currency.name, amount.text);
  const tier = selectTier(policy, currency.name, amount.text, valuation);
  const value =
    valuation.kind === 'known' ? currentAndJudged(valuation, currency.name) : `Value unknown (${valuation.reason})`;
  if (!tier) return `${value}: above every approval tier of the policy, so it cannot be requested.`;
  const strictest =
    valuation.kind === 'unknown' && tier.basis === 'value' ? ' (the top tier while the value is unknown)' : '';
  return `${value}, ${tierWords(tier, currency.name)}${strictest}`;
}

const inputState = z
  .object({
    value: z.string().max(5000).nullish(),
    selected_option: z.object({ value: z.string().max(200) }).nullish(),
  })
  .passthrough();

/** The view as Slack sends it with the block action: only the request form, with its hash. */
const formView = z.object({
  id: z.string().min(1).max(100),
  hash: z.string().min(1).max(200),
  callback_id: z.literal(VIEWS.request),
  private_metadata: z.string().max(3000).optional(),
  title: z.object({ type: z.literal('plain_text'), text: z.string().max(24) }).passthrough(),
  submit: z
    .object({ type: z.literal('plain_text'), text: z.string().max(24) })
    .passthrough()
    .nullish(),
  close: z
    .object({ type: z.literal('plain_text'), text: z.string().max(24) })
    .passthrough()
    .nullish(),
  blocks: z.array(z.object({ type: z.string(), block_id: z.string().optional() }).passthrough()).max(100),
  state: z.object({ values: z.record(z.string(), z.record(z.string(), inputState)) }),
});

type FormView = z.infer<typeof formView>;

function read(view: FormView, field: 'amount' | 'currency'): string {
  const s = view.state.values[FIELDS[field].block]?.[FIELDS[field].action];
  return (s?.value ?? s?.selected_option?.value ?? '').trim();
}

/** The form's blocks with the value line replaced (or put under the currency, in a form opened before it existed). */
function withLine(blocks: FormView['blocks'], line: KnownBlock): unknown[] {
  if (blocks.some((b) => b.block_id === VALUE_BLOCK)) return blocks.map((b) => (b.block_id === VALUE_BLOCK ? line : b));
  const at = blocks.findIndex((b) => b.block_id === FIELDS.currency.block);
  return [...blocks.slice(0, at + 1), line, ...blocks.slice(at + 1)];
}

type PreviewArgs = Pick<SlackActionMiddlewareArgs<BlockAction>, 'ack' | 'body'> & { client: App['client'] };

export function valuePreview(deps: CommandDeps) {
  return async ({ ack, body, client }: PreviewArgs): Promise<void> => {
    await ack();
    const parsed = formView.safeParse(body.view);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues.slice(0, 3) }, 'value preview: not the request form as expected');
      return;
    }
    const view = parsed.data;
    const text = previewText(
      deps.policy.current(),
      deps.prices.snapshot(),
      read(view, 'amount'),
      read(view, 'currency'),
    );
    const shown = view.blocks.find((b) => b.block_id === VALUE_BLOCK) as
      | { elements?: Array<{ text?: string }> }
      | undefined;
    // Same words already shown (a character that changes neither value nor tier, e.g. a trailing zero): no call.
    if (shown?.elements?.[0]?.text === text) return;
    try {
      await client.views.update({
        view_id: view.id,
        hash: view.hash,
        view: {
          type: 'modal',
          callback_id: view.callback_id,
          ...(view.private_metadata ? { private_metadata: view.private_metadata } : {}),
          title: view.title,
          ...(view.submit ? { submit: view.submit } : {}),
          ...(view.close ? { close: view.close } : {}),
          blocks: withLine(view.blocks, valueLine(text)) as KnownBlock[],
        } as Parameters<App['client']['views']['update']>[0]['view'],
      });
    } catch (err) {
      const code = classifySlackError(err).error;
      // Newer input changed the form meanwhile; its own action brings the line for it.
      if (code === 'hash_conflict') return;
      deps.logger.warn({ error: code }, 'value preview: the form could not be updated');
    }
  };
}
