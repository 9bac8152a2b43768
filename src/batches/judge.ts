/**
 * A batch judged by the one rule table (src/withdrawals/rule-table.ts), on its total: every row is
 * judged as the request it will become, with the rows before it counted in the limits' windows
 * (so the batch counts against every limit as a whole, whatever the limits are), and the approval
 * tier and the step-up are chosen on the batch's total value (per currency, on its total amount
 * for native tiers): splitting a payout into rows never lowers the approvals it needs.
 * Pure: the facts (policy, prices, the other requests) are passed in.
 */
import type { Policy } from '../policy/schema.js';
import type { PriceSnapshot, Valuation } from '../money/value.js';
import { NO_PRICES, sumValues, valueAt } from '../prices/value.js';
import { stepUpNeed, type StepUpNeed } from '../stepup/threshold.js';
import { formatAmount } from '../format/amount.js';
import { Dec } from '../money/decimal.js';
import { judge, type Judgement, type Step } from '../withdrawals/rule-table.js';
import type { AllowlistApprovals } from '../withdrawals/rules.js';
import type { AllowlistInfo, WithdrawalRequest } from '../withdrawals/types.js';
import { tierFor, type TierChoice } from '../withdrawals/value-rules.js';
import type { ScreeningFacts } from '../screening/types.js';
import { ageWords } from '../screening/words.js';
import { formatFiat } from '../format/fiat.js';
import { aboveStaleBlock, staleListOf } from '../withdrawals/screening-rules.js';
import type { PaidSummary } from '../withdrawals/paid-summary.js';
import type { BatchError, BatchRow, BatchScreening, BatchTotals } from './types.js';

export interface BatchFacts {
  step: Extract<Step, 'request' | 'approve'>;
  now: number;
  policy: Policy;
  prices: PriceSnapshot | undefined;
  /** Every stored request, and other pending batches' rows (this batch's own rows excluded). */
  others: readonly WithdrawalRequest[];
  allowlistApprovals?: AllowlistApprovals | undefined;
  /** The sanctions list and the provider's cached answers (absent: the app screens nothing). */
  screening?: ScreeningFacts | undefined;
  /** What completed payments no longer in memory tell (paid-summary.ts); absent: nothing known paid. */
  paid?: PaidSummary | undefined;
}

export interface BatchJudgement {
  /** Rows the policy never allows (an address off an enforced allowlist, a missing note…). */
  refusals: BatchError[];
  /** Limits the batch as a whole would cross now (the first row that crosses each, with its words). */
  holds: string[];
  /** The sanctions list is stale and the batch's total above screening.stale_block_above: why nothing may move. */
  staleList?: string;
  /** The tier of the batch's total (absent: no tier covers it, with a refusal). */
  tier?: TierChoice;
  stepUp: boolean;
  /** What confirms an approval at the batch's total: none, a code (or a passkey), or a passkey only. */
  stepUpNeed: StepUpNeed;
  newDestinations: number;
  unlisted: number;
  /** Each row's allowlist status as judged now, by row number: what the row is stored with once approved. */
  allowlists: Record<number, AllowlistInfo>;
  /** What screening found across the rows (absent: the app screens nothing). */
  screening?: BatchScreening;
}

/** Rules whose refusal is about the row's address: the column named in the error. */
const ADDRESS_RULES = new Set<string>(['allowlist', 'sanctions']);

const unknown = (reason: string): Valuation => ({ kind: 'unknown', reason, since: null });

export function totalsOf(rows: readonly BatchRow[], prices: PriceSnapshot | undefined): BatchTotals {
  const perCurrency: Record<string, Dec> = {};
  for (const r of rows) perCurrency[r.currency] = (perCurrency[r.currency] ?? new Dec(0)).plus(r.amount);
  const values = rows.map((r) => (prices ? valueAt(prices, r.currency, r.amount) : r.valuation));
  return {
    rows: rows.length,
    perCurrency: Object.fromEntries(Object.entries(perCurrency).map(([c, d]) => [c, d.toFixed()])),
    value: rows.length ? sumValues(values) : unknown('no rows'),
  };
}

/** The strictest tier of the batch's totals: the most approvals, the highest index, every must_include. */
export function batchTier(policy: Policy, totals: BatchTotals): TierChoice | { refused: string } {
  let out: TierChoice | undefined;
  const must = new Set<string>();
  for (const [currency, amount] of Object.entries(totals.perCurrency)) {
    const t = tierFor(policy, currency, amount, totals.value);
    if (!t)
      return {
        refused: `No approval tier of the policy covers the batch's total of ${formatAmount(amount, currency)}.`,
      };
    for (const e of t.mustInclude) must.add(e);
    if (!out || t.approvals > out.approvals || (t.approvals === out.approvals && t.index > out.index)) out = t;
  }
  if (!out) return { refused: 'The batch has no rows.' };
  // Several currencies, each under its own native list, could each fall in a low tier: the batch's
  // total value is judged by the `value` list too (unknown: its top tier), and the stricter is kept.
  const currencies = Object.keys(totals.perCurrency);
  const valueTiers = policy.withdrawals.tiers.value;
  if (currencies.length > 1 && valueTiers) {
    const byValue = { ...policy, withdrawals: { ...policy.withdrawals, tiers: { value: valueTiers } } };
    const t = tierFor(byValue, currencies[0]!, '0', totals.value);
    if (t) {
      for (const e of t.mustInclude) must.add(e);
      if (t.approvals > out.approvals || (t.approvals === out.approvals && t.index > out.index)) out = t;
    }
  }
  return { ...out, mustInclude: [...must] };
}

/** The tier asking more: more approvals, then the higher one; every must_include of both. */
function stricter(a: TierChoice, b: TierChoice): TierChoice {
  const top = b.approvals > a.approvals || (b.approvals === a.approvals && b.index > a.index) ? b : a;
  return { ...top, mustInclude: [...new Set([...a.mustInclude, ...b.mustInclude])] };
}

const NEED_RANK: Record<StepUpNeed, number> = { none: 0, code: 1, passkey: 2 };
/** The stricter of two needs (a passkey over a code over none). */
export const stricterNeed = (a: StepUpNeed, b: StepUpNeed): StepUpNeed => (NEED_RANK[b] > NEED_RANK[a] ? b : a);

/** The confirmation the batch's total needs: the strictest over its currencies, each judged on its total. */
export const batchStepUpNeed = (policy: Policy, totals: BatchTotals): StepUpNeed =>
  Object.entries(totals.perCurrency)
    .map(([c, amount]) => stepUpNeed(policy, c, amount, totals.value))
    .reduce(stricterNeed, 'none');

/** `rows`: the batch's rows as the requests they become (rows.ts), in file order. */
export function judgeBatch(rows: readonly WithdrawalRequest[], totals: BatchTotals, f: BatchFacts): BatchJudgement {
  const out: BatchJudgement = {
    refusals: [],
    holds: [],
    stepUp: false,
    stepUpNeed: 'none',
    newDestinations: 0,
    unlisted: 0,
    allowlists: {},
  };
  const tier = batchTier(f.policy, totals);
  if ('refused' in tier) out.refusals.push({ row: 0, column: 'amount', reason: tier.refused });
  else out.tier = tier;
  out.stepUpNeed = batchStepUpNeed(f.policy, totals);
  out.stepUp = out.stepUpNeed !== 'none';
  if (f.screening) out.screening = { lookalikes: [], sanctioned: [] };
  const prices = f.prices ?? NO_PRICES;
  // Row k is judged with the rows before it as already requested: row by row, the windows fill as
  // they will once every row is stored, and the first row that would cross a limit names it.
  const all = [...f.others, ...rows];
  const held = new Set<string>(['stale_list']);
  const stale = staleListOf(f);
  if (stale) {
    if (out.screening) out.screening.stale = { ageMs: stale.ageMs };
    // Judged once, on the batch's total (unknown: above): 100 rows of $600 are one $60,000 payout.
    if (aboveStaleBlock(f, totals.value)) out.staleList = staleWords(stale, totals, f);
  }
  rows.forEach((r, k) => {
    const judged = judge(r, {
      step: f.step,
      now: f.now,
      policy: f.policy,
      valuation: f.prices ? valueAt(prices, r.currency, r.amount) : (r.valuation ?? unknown('no price was read')),
      prices,
      requests: () => all.slice(0, f.others.length + k),
      allowlistApprovals: f.allowlistApprovals,
      screening: f.screening,
      paid: f.paid,
    });
    const row = r.batch?.row ?? k + 1;
    if (out.screening) screened(out.screening, row, judged);
    // The tier rule's refusal is the row's own amount (the batch's tier is judged on the total above).
    if (judged.refusal)
      out.refusals.push({
        row,
        column: ADDRESS_RULES.has(judged.refusal.rule) ? 'address' : judged.refusal.rule,
        reason: judged.refusal.message,
      });
    for (const h of judged.holds)
      if (!held.has(h.rule)) {
        held.add(h.rule);
        out.holds.push(`row ${row}: ${h.message}`);
      }
    // A row's own tier is at least the batch's (rule-table.ts); a limit may raise it, a new destination add
    // approvals: the batch needs the strictest of them, once.
    if (judged.tier && out.tier) out.tier = stricter(out.tier, judged.tier);
    if (judged.allowlist) out.allowlists[row] = judged.allowlist;
    if (judged.allowlist?.neverPaidBefore) out.newDestinations++;
    if (judged.allowlist?.status === 'unlisted') out.unlisted++;
  });
  return out;
}

function staleWords(stale: NonNullable<ReturnType<typeof staleListOf>>, totals: BatchTotals, f: BatchFacts): string {
  const v = totals.value;
  const worth = v.kind === 'known' ? `is ${formatFiat(v.usd, { approx: true })}` : 'has no known value now';
  const limit = formatFiat(f.policy.screening.stale_block_above);
  const head = `The sanctions list is ${ageWords(stale.ageMs)} old (${stale.since}), and this batch payout's total ${worth}`;
  return f.step === 'request'
    ? `Nothing was requested: ${head.charAt(0).toLowerCase()}${head.slice(1)}. Above ${limit} no batch can be requested ${stale.until}.`
    : `${head}. Above ${limit} it cannot be approved ${stale.until}.`;
}

/** One row's screening added to the batch's: the list, the provider's worst word, a stale list, a look-alike, a sanction. */
function screened(s: BatchScreening, row: number, j: Judgement): void {
  if (j.refusal?.rule === 'sanctions') s.sanctioned.push(row);
  const x = j.screening;
  if (!x) return;
  if (x.list) s.list = x.list;
  if (x.provider && s.provider !== 'down') s.provider = x.provider;
  if (x.stale) s.stale = x.stale;
  if (x.lookalike) s.lookalikes.push({ row, ...x.lookalike });
}
