/**
 * The screening rules of the rule table (rule-table.ts): a sanctioned destination is refused at
 * every step, a stale list fails closed above a value, and a look-alike destination needs more
 * approvals. Pure: the list, its age and the provider's cached answers come in the facts
 * (src/screening/service.ts reads them), so the same judgement runs at the request, each
 * approval, the send claim and the verification callback.
 */
import { Dec } from '../money/decimal.js';
import { formatFiat } from '../format/fiat.js';
import { utcDay, utcMinute } from '../format/time.js';
import { isListed, listAge, listRef } from '../screening/list.js';
import { lookalikeOf, type KnownAddress } from '../screening/lookalike.js';
import type { ScreeningInfo } from '../screening/types.js';
import type { Valuation } from '../prices/types.js';
import { sumValues, valueAt } from '../prices/value.js';
import { ageWords, listName } from '../screening/words.js';
import type { RuleFacts, Verdict } from './rule-types.js';
import type { WithdrawalRequest } from './types.js';

const PASS: Verdict = { kind: 'pass' };
const PAID_WINDOW_MS = 90 * 86_400_000;

/** The provider's word for the card: `down` (the list alone decided) or `clean`; absent: no provider. */
function providerWord(r: WithdrawalRequest, f: RuleFacts): ScreeningInfo['provider'] {
  const a = f.screening?.provider?.answer(r.destination);
  if (!f.screening?.provider) return undefined;
  // Not asked yet (the callback reads only the cache) counts as not reached: the list alone decided.
  return a?.kind === 'clean' ? 'clean' : 'down';
}

/** A listed destination: refused, naming the list and its date (or the provider and its finding). */
export function judgeSanctions(r: WithdrawalRequest, f: RuleFacts): Verdict {
  const s = f.screening;
  // The list always decides: `screening.enabled: false` switches off only the provider and the look-alikes.
  if (!s) return PASS;
  const later = f.step !== 'request';
  if (isListed(s.list, r.destination))
    return {
      kind: 'refuse',
      message: later
        ? `the destination ${r.destination} is now on ${listName(s.list)} (read ${utcMinute(s.list.fetchedAt)}): nothing may be sent to it`
        : `${r.destination} is on ${listName(s.list)}: paying a sanctioned address is against the law, so nothing was requested. The admins have been told.`,
    };
  if (!f.policy.screening.enabled) return PASS;
  const p = s.provider?.answer(r.destination);
  if (p?.kind === 'listed') {
    const names = p.names.length ? ` (${p.names.slice(0, 3).join(', ')})` : '';
    return {
      kind: 'refuse',
      message: later
        ? `the sanctions screening service (${s.provider!.name}) now identifies the destination ${r.destination} as sanctioned${names}: nothing may be sent to it`
        : `${r.destination} is identified as sanctioned by the sanctions screening service (${s.provider!.name})${names}: nothing was requested. The admins have been told.`,
    };
  }
  const provider = providerWord(r, f);
  return { kind: 'count', screening: { list: listRef(s.list), ...(provider ? { provider } : {}) } };
}

/** The list's age when older than max_age, and in words since when (absent: fresh, or nothing screened). */
export function staleListOf(
  f: Pick<RuleFacts, 'screening' | 'policy' | 'now'>,
): { ageMs: number; since: string; until: string } | undefined {
  const s = f.screening;
  const p = f.policy.screening;
  if (!s || !p.enabled) return undefined;
  const ageMs = listAge(s.list, f.now);
  if (ageMs <= p.max_age) return undefined;
  const since = s.bundled
    ? `it is the snapshot shipped with the app, dated ${utcDay(s.list.date)}`
    : `it could not be refreshed since ${utcMinute(s.list.fetchedAt)}`;
  const until = s.unsourced
    ? 'until an admin sets SANCTIONS_LIST_URL to refresh the list'
    : 'until the list is refreshed';
  return { ageMs, since, until };
}

/** Whether a value is above stale_block_above: an unknown one is. */
export const aboveStaleBlock = (f: Pick<RuleFacts, 'policy'>, v: Valuation): boolean =>
  v.kind !== 'known' || new Dec(v.usd).gt(f.policy.screening.stale_block_above);

/** A batch row's whole batch, valued now at the policy price (no prices: unknown). */
function batchValue(r: WithdrawalRequest, f: RuleFacts): Valuation | undefined {
  const total = r.batch?.total;
  if (!total) return undefined;
  const prices = f.prices;
  if (!prices) return { kind: 'unknown', reason: 'no price was read', since: null };
  return sumValues(Object.entries(total).map(([c, a]) => valueAt(prices, c, a)));
}

/**
 * A list older than max_age: above stale_block_above (or of unknown value) refused at the request, held at the send.
 * A batch's row is judged on the larger of itself and its batch (batches/judge.ts judges the batch once at its request).
 */
export function judgeStaleList(r: WithdrawalRequest, f: RuleFacts): Verdict {
  const stale = staleListOf(f);
  if (!stale) return PASS;
  const { ageMs, since, until } = stale;
  const whole = batchValue(r, f);
  const batchAbove = whole !== undefined && aboveStaleBlock(f, whole);
  if (!aboveStaleBlock(f, f.valuation) && !batchAbove) return { kind: 'count', screening: { stale: { ageMs } } };
  const limit = formatFiat(f.policy.screening.stale_block_above);
  const v = batchAbove ? whole : f.valuation;
  const worth = v.kind === 'known' ? `is ${formatFiat(v.usd, { approx: true })}` : 'has no known value now';
  const value = batchAbove ? `the batch payout this withdrawal is a row of ${worth}` : `this withdrawal ${worth}`;
  return {
    kind: 'hold',
    until: 'release',
    message:
      f.step === 'request'
        ? `The sanctions list is ${ageWords(ageMs)} old (${since}), and this request ${batchAbove ? `is a row of a batch payout that ${worth}` : worth}: above ${limit} nothing can be requested ${until}.`
        : `the sanctions list is ${ageWords(ageMs)} old (${since}) and ${value}, above ${limit}`,
  };
}

/** The addresses the team knows by name: the allowlist's, and destinations paid in the last 90 days. */
export function knownAddresses(f: Pick<RuleFacts, 'policy' | 'now' | 'requests'>, except?: string): KnownAddress[] {
  const listed = f.policy.withdrawals.allowlist.addresses.map((a) => ({
    address: a.address,
    network: a.network,
    label: a.label,
  }));
  const since = f.now - PAID_WINDOW_MS;
  const paid = f
    .requests()
    .filter((o) => o.id !== except && o.state === 'completed' && Date.parse(o.sendStartedAt ?? o.createdAt) > since)
    .map((o) => ({
      address: o.destination,
      network: o.network,
      label: `a destination paid on ${utcDay(o.sendStartedAt ?? o.createdAt)}`,
    }));
  return [...listed, ...paid];
}

/** A destination that imitates a known one: the card warns, and it needs lookalike_extra_approvals more. */
export function judgeLookalike(r: WithdrawalRequest, f: RuleFacts): Verdict {
  const p = f.policy.screening;
  if (!p.enabled) return PASS;
  const like = lookalikeOf(r.destination, r.network, knownAddresses(f, r.id));
  if (!like) return PASS;
  const extra = p.lookalike_extra_approvals;
  return {
    kind: 'count',
    extraApprovals: extra,
    screening: { lookalike: { label: like.label, address: like.address, extraApprovals: extra } },
  };
}
