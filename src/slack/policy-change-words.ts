/**
 * A policy change in plain words, one line per difference, for the admins who approve it
 * ("tier 2 (up to 10,000): approvals 2 → 1", "daily limit USDT: 50,000 → 80,000"). Pure:
 * the same two policies always give the same lines, in the schema's order. Sections that
 * have no phrase of their own (a field added to the schema later) are still described,
 * generically, by path: a change is never silent.
 */
import { formatFiat } from '../format/fiat.js';
import { formatAmount } from '../format/amount.js';
import { mention } from './blocks.js';
import { outside, outsideCode } from '../format/outside.js';
import { effectivePolicyChangeApprovals, type Policy, type Tier } from '../policy/schema.js';
import { addressKey } from '../policy/governance/types.js';

const who = (id: string) => mention(id, 'everyone');
const amount = (v: string | undefined) => (v === undefined ? 'none' : outside(formatAmount(v), 60));
const fiat = (v: string | undefined) => (v === undefined ? 'none' : outside(formatFiat(v), 60));
const arrow = (a: string, b: string) => `${a} → ${b}`;

/** "90 s", "30 min", "2 h", "1 d 6 h": durations as the policy file writes them, in words. */
export function durationWords(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const parts: string[] = [];
  let left = ms;
  for (const [size, name] of units) {
    const n = Math.floor(left / size);
    if (n) parts.push(`${n} ${name}`);
    left -= n * size;
  }
  return parts.join(' ') || '0 s';
}

/** Members added (+) and removed (−) between two lists, in the new list's then the old list's order. */
function listDiff(name: string, a: readonly string[], b: readonly string[], show: (x: string) => string): string[] {
  return [
    ...b.filter((x) => !a.includes(x)).map((x) => `${name}: + ${show(x)}`),
    ...a.filter((x) => !b.includes(x)).map((x) => `${name}: − ${show(x)}`),
  ];
}

/** Per-currency amounts (daily limits, thresholds): one line per currency whose amount changed. */
function perCurrencyDiff(name: string, a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys
    .filter((k) => a[k] !== b[k])
    .map(
      (k) =>
        `${name} ${k === 'default' ? 'other currencies' : k === 'value' ? 'by value' : outside(k, 30)}: ${arrow(k === 'value' ? fiat(a[k]) : amount(a[k]), k === 'value' ? fiat(b[k]) : amount(b[k]))}`,
    );
}

function tierRange(tiers: readonly Tier[], i: number): string {
  const t = tiers[i]!;
  if (t.max !== undefined) return `up to ${formatAmount(t.max)}`;
  const below = tiers[i - 1]?.max;
  return below === undefined ? 'any amount' : `above ${formatAmount(below)}`;
}

function tierWords(t: Tier): string {
  const must = t.must_include.length ? `, including ${t.must_include.map(who).join(', ')}` : '';
  return `${t.approvals} approval${t.approvals === 1 ? '' : 's'}${must}`;
}

function tiersDiff(a: Policy['withdrawals']['tiers'], b: Policy['withdrawals']['tiers']): string[] {
  const out: string[] = [];
  const currencies = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const cur of currencies) {
    const prefix = cur === 'default' ? '' : `${outside(cur, 30)} `;
    const ta = a[cur];
    const tb = b[cur];
    if (!ta || !tb) {
      const list = (ta ?? tb)!.map((t, i, all) => `${tierRange(all, i)}: ${tierWords(t)}`).join('; ');
      out.push(`${outside(cur, 30)} tiers: ${tb ? 'added' : 'removed (the default tiers apply)'} (${list})`);
      continue;
    }
    for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
      const x = ta[i];
      const y = tb[i];
      const label = `${prefix}tier ${i + 1}`;
      if (!x) out.push(`${label} added: ${tierRange(tb, i)}, ${tierWords(y!)}`);
      else if (!y) out.push(`${label} removed (was ${tierRange(ta, i)}, ${tierWords(x)})`);
      else {
        const range = tierRange(tb, i);
        if (x.max !== y.max) out.push(`${label}: ${arrow(tierRange(ta, i), range)}`);
        if (x.approvals !== y.approvals)
          out.push(`${label} (${range}): approvals ${arrow(`${x.approvals}`, `${y.approvals}`)}`);
        out.push(...listDiff(`${label} (${range}) must include`, x.must_include, y.must_include, who));
      }
    }
  }
  return out;
}

type Listed = Policy['withdrawals']['allowlist']['addresses'][number];
const keyOf = (e: Pick<Listed, 'address' | 'network'>) => addressKey(e.network, e.address);

function allowlistDiff(a: Policy['withdrawals']['allowlist'], b: Policy['withdrawals']['allowlist']): string[] {
  const out: string[] = [];
  if (a.mode !== b.mode) out.push(`allowlist mode: ${arrow(a.mode, b.mode)}`);
  if (a.cooloff !== b.cooloff)
    out.push(`allowlist cooling-off: ${arrow(durationWords(a.cooloff), durationWords(b.cooloff))}`);
  const before = new Map(a.addresses.map((e) => [keyOf(e), e]));
  const after = new Map(b.addresses.map((e) => [keyOf(e), e]));
  // The whole address, never shortened: an approver must be able to check every character.
  const where = (e: Listed) => `${outsideCode(e.address)} on ${outside(e.network, 30)}`;
  for (const [k, e] of after) {
    const old = before.get(k);
    if (!old) out.push(`allowlist: + ${where(e)}, ${outside(e.label)}`);
    else if (old.label !== e.label)
      out.push(`allowlist: ${where(e)} renamed ${outside(old.label)} → ${outside(e.label)}`);
  }
  for (const [k, e] of before) if (!after.has(k)) out.push(`allowlist: − ${where(e)}, ${outside(e.label)}`);
  return out;
}

function routeWords(r: Policy['channels']['routes'][number]): string {
  const what = [
    r.kind === 'any' ? 'all' : `${r.kind}s`,
    r.currency && outside(r.currency, 30),
    r.network && `on ${outside(r.network, 30)}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `${what} → <#${r.channel}>`;
}

/** A value of a section without its own phrase, short and readable. */
function plain(v: unknown): string {
  if (v === undefined) return 'none';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return outside(text, 120);
}

/** Every leaf that differs, by path: for the sections (and future fields) that have no phrase of their own. */
function genericDiff(path: string, a: unknown, b: unknown): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => genericDiff(path ? `${path}.${k}` : k, a[k], b[k]));
  }
  return [`${outside(path, 120)}: ${arrow(plain(a), plain(b))}`];
}

/** The sections phrased below; anything else in the schema is described by genericDiff. */
const PHRASED = new Set([
  'channels',
  'people',
  'withdrawals',
  'policy_changes',
  'alerts',
  'schedule',
  'retention',
  'exports',
]);

export function describePolicyChange(a: Policy, b: Policy): string[] {
  const out: string[] = [];
  if (a.channels.approvals !== b.channels.approvals)
    out.push(`approvals channel: ${arrow(`<#${a.channels.approvals}>`, `<#${b.channels.approvals}>`)}`);
  if (a.channels.alerts !== b.channels.alerts)
    out.push(`alerts channel: ${arrow(`<#${a.channels.alerts}>`, `<#${b.channels.alerts}>`)}`);
  out.push(...listDiff('alert routes', a.channels.routes.map(routeWords), b.channels.routes.map(routeWords), (x) => x));

  for (const role of ['viewers', 'requesters', 'approvers', 'admins'] as const)
    out.push(...listDiff(role, a.people[role], b.people[role], who));

  const wa = a.withdrawals;
  const wb = b.withdrawals;
  if (wa.expires_after !== wb.expires_after)
    out.push(`requests expire after: ${arrow(durationWords(wa.expires_after), durationWords(wb.expires_after))}`);
  if (wa.remind_before !== wb.remind_before)
    out.push(`reminder before expiry: ${arrow(durationWords(wa.remind_before), durationWords(wb.remind_before))}`);
  out.push(...tiersDiff(wa.tiers, wb.tiers));
  out.push(...perCurrencyDiff('daily limit', wa.daily_limit, wb.daily_limit));
  out.push(...perCurrencyDiff('note required above', wa.note_required_above, wb.note_required_above));
  out.push(...perCurrencyDiff('step-up above', wa.step_up_above, wb.step_up_above));
  out.push(...perCurrencyDiff('passkey needed above', wa.passkey_above, wb.passkey_above));
  out.push(...allowlistDiff(wa.allowlist, wb.allowlist));
  out.push(...genericDiff('withdrawals', omit(wa, WITHDRAWAL_PHRASED), omit(wb, WITHDRAWAL_PHRASED)));

  const pa = effectivePolicyChangeApprovals(a);
  const pb = effectivePolicyChangeApprovals(b);
  if (pa !== pb) out.push(`admins needed to approve a policy change: ${arrow(`${pa}`, `${pb}`)}`);

  out.push(...perCurrencyDiff('@here on deposits above', a.alerts.mention_above, b.alerts.mention_above));
  out.push(...perCurrencyDiff('low-balance alert below', a.alerts.low_balance, b.alerts.low_balance));
  out.push(
    ...genericDiff(
      'alerts',
      omit(a.alerts, ['mention_above', 'low_balance']),
      omit(b.alerts, ['mention_above', 'low_balance']),
    ),
  );

  if (a.schedule.timezone !== b.schedule.timezone)
    out.push(`schedule time zone: ${arrow(outside(a.schedule.timezone, 60), outside(b.schedule.timezone, 60))}`);
  const jobs = [...new Set([...Object.keys(a.schedule), ...Object.keys(b.schedule)])].filter((k) => k !== 'timezone');
  for (const job of jobs) {
    const x = a.schedule[job];
    const y = b.schedule[job];
    if (x !== y) out.push(`schedule of ${job}: ${arrow(x ? `"${x}"` : 'default', y ? `"${y}"` : 'default')}`);
  }
  if (a.retention.days !== b.retention.days)
    out.push(`events and alerts kept for: ${arrow(`${a.retention.days} days`, `${b.retention.days} days`)}`);
  if (a.exports.monthly !== b.exports.monthly)
    out.push(`monthly export: ${arrow(a.exports.monthly, b.exports.monthly)}`);

  for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (!PHRASED.has(key))
      out.push(...genericDiff(key, (a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  return out;
}

const WITHDRAWAL_PHRASED = [
  'expires_after',
  'remind_before',
  'tiers',
  'daily_limit',
  'note_required_above',
  'step_up_above',
  'passkey_above',
  'allowlist',
];

function omit(o: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}
