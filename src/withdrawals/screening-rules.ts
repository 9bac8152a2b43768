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

/** A list older than max_age: above stale_block_above (or of unknown value) refused at the request, held at the send. */
export function judgeStaleList(_r: WithdrawalRequest, f: RuleFacts): Verdict {
  const s = f.screening;
  const p = f.policy.screening;
  if (!s || !p.enabled) return PASS;
  const ageMs = listAge(s.list, f.now);
  if (ageMs <= p.max_age) return PASS;
  const above = f.valuation.kind !== 'known' || new Dec(f.valuation.usd).gt(p.stale_block_above);
  if (!above) return { kind: 'count', screening: { stale: { ageMs } } };
  const since = s.bundled
    ? `it is the snapshot shipped with the app, dated ${utcDay(s.list.date)}`
    : `it could not be refreshed since ${utcMinute(s.list.fetchedAt)}`;
  const value =
    f.valuation.kind === 'known' ? `is ${formatFiat(f.valuation.usd, { approx: true })}` : 'has no known value now';
  return {
    kind: 'hold',
    until: 'release',
    message:
      f.step === 'request'
        ? `The sanctions list is ${ageWords(ageMs)} old (${since}), and this request ${value}: above ${formatFiat(p.stale_block_above)} nothing can be requested ${s.unsourced ? 'until an admin sets SANCTIONS_LIST_URL to refresh the list' : 'until the list is refreshed'}.`
        : `the sanctions list is ${ageWords(ageMs)} old (${since}) and this withdrawal ${value}, above ${formatFiat(p.stale_block_above)}`,
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
