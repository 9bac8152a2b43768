/**
 * The request form's value line, kept up to date while the form is filled (issue 24, point 5):
 * the amount and currency inputs send a block action as they change (`dispatch_action`), and
 * the form is updated with "≈ $900.00, up to $1,000.00: 1 approval" under the currency. The value comes
 * from the price cache only (never a network call on the ack path) and the tier from the same
 * rule as the decider (`selectTier` with `valueAt`), so the line says what the submission will
 * decide with the prices of this moment.
 *
 * The destination and network send one too: the line under the destination says whether it is on
 * the sanctions list, or looks like an address the team pays (issue 36: "the form and the card warn"),
 * from the list in force and the stored requests only (no network call either).
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
import { CURRENCIES, NETWORKS, lookup } from '../../src/wallet/enums.js';
import { parseAmount, selectTier } from '../../src/withdrawals/index.js';
import type { CommandDeps } from '../deps.js';
import {
  DESTINATION_CHECK_BLOCK,
  DESTINATION_HINT,
  destinationCheckLine,
  FIELDS,
  VALUE_BLOCK,
  VALUE_HINT,
  VIEWS,
  valueLine,
} from './modals.js';
import type { ListedVerdict } from '../../src/screening/service.js';
import { lookalikeOf, shortAddress } from '../../src/screening/lookalike.js';
import { listName } from '../../src/screening/words.js';
import { knownAddresses } from '../../src/withdrawals/screening-rules.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';

/** The inputs whose changes update the form's lines (their action id stays `value`, as the submission reads it). */
export const PREVIEW_ACTION = {
  block_id: new RegExp(
    `^(${FIELDS.amount.block}|${FIELDS.currency.block}|${FIELDS.network.block}|${FIELDS.destination.block})$`,
  ),
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

/**
 * The destination line's words: on the sanctions list (it cannot be requested), or a look-alike
 * of a known address (it will need more approvals), or the hint. Plain text (a context block).
 */
export function destinationCheckText(
  o: { policy: Policy; now: number; requests: () => readonly WithdrawalRequest[] },
  listed: ((address: string) => ListedVerdict | undefined) | undefined,
  destinationTyped: string,
  networkTyped: string,
): string {
  const destination = destinationTyped.trim();
  const network = lookup(NETWORKS, networkTyped)?.name;
  if (!destination || !o.policy.screening.enabled) return DESTINATION_HINT;
  const v = listed?.(destination);
  if (v)
    return v.by === 'list'
      ? `⛔ This address is on ${listName(v.list)}: it cannot be requested.`
      : '⛔ The sanctions screening service identifies this address as sanctioned: it cannot be requested.';
  const like = network ? lookalikeOf(destination, network, knownAddresses(o)) : undefined;
  if (!like) return DESTINATION_HINT;
  const more = o.policy.screening.lookalike_extra_approvals;
  return `⚠️ This looks like ${like.label} (${shortAddress(like.address)}), but is a different address: check it against its source.${more ? ` It will need ${more} more approval${more === 1 ? '' : 's'}.` : ''}`;
}

function read(view: FormView, field: 'amount' | 'currency' | 'network' | 'destination'): string {
  const s = view.state.values[FIELDS[field].block]?.[FIELDS[field].action];
  return (s?.value ?? s?.selected_option?.value ?? '').trim();
}

/** The form's blocks with a line replaced (or put under `after`, in a form opened before it existed). */
function withLine(blocks: readonly unknown[], line: KnownBlock & { block_id: string }, after: string): unknown[] {
  const id = (b: unknown) => (b as { block_id?: string }).block_id;
  if (blocks.some((b) => id(b) === line.block_id)) return blocks.map((b) => (id(b) === line.block_id ? line : b));
  const at = blocks.findIndex((b) => id(b) === after);
  return [...blocks.slice(0, at + 1), line, ...blocks.slice(at + 1)];
}

/** The text of the form's line `blockId`, as shown now. */
function shownText(blocks: FormView['blocks'], blockId: string): string | undefined {
  const b = blocks.find((x) => x.block_id === blockId) as { elements?: Array<{ text?: string }> } | undefined;
  return b?.elements?.[0]?.text;
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
    const check = destinationCheckText(
      { policy: deps.policy.current(), now: deps.now(), requests: () => deps.withdrawals.list() },
      deps.screening?.listed,
      read(view, 'destination'),
      read(view, 'network'),
    );
    // Same words already shown (a character that changes neither value nor tier, e.g. a trailing zero): no call.
    if (shownText(view.blocks, VALUE_BLOCK) === text && shownText(view.blocks, DESTINATION_CHECK_BLOCK) === check)
      return;
    const lines = withLine(
      withLine(view.blocks, valueLine(text) as KnownBlock & { block_id: string }, FIELDS.currency.block),
      destinationCheckLine(check) as KnownBlock & { block_id: string },
      FIELDS.destination.block,
    );
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
          blocks: lines as KnownBlock[],
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
