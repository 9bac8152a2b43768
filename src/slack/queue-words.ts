/**
 * The team's queue in words (/treasury pending, the App Home, the approvers' reminder DM):
 * each open request with its amount, payee, requester, age, time left and what it still needs,
 * by name. The data (who, how many) comes from the domain (src/withdrawals/queue.ts); this
 * only says it.
 */
import { outside, outsideCode, outsidePlain } from '../format/outside.js';
import type { QueueEntry, StillNeeds } from '../withdrawals/queue.js';
import type { WithdrawalRequest } from '../withdrawals/index.js';
import { mention, shorten } from './blocks.js';
import { utcMinute } from '../format/time.js';
import { amountText, riskFlags, stateLabel } from './withdrawal/words.js';

/** "12 min", "2 h 5 min", "3 d 4 h": the two largest units, enough to read at a glance. */
export function shortDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
  ];
  const parts: string[] = [];
  let left = Math.max(0, ms);
  for (const [size, name] of units) {
    const n = Math.floor(left / size);
    if (n || parts.length) parts.push(`${n} ${name}`);
    left -= n * size;
    if (parts.length === 2) break;
  }
  const shown = parts.filter((p) => !p.startsWith('0 '));
  return shown.join(' ') || 'less than a minute';
}

/** "<@A>, <@B> or <@C>". */
export function orList(ids: readonly string[], word = 'or'): string {
  const m = ids.map((id) => mention(id, 'any approver'));
  return m.length <= 1 ? (m[0] ?? '') : `${m.slice(0, -1).join(', ')} ${word} ${m.at(-1)}`;
}

/** "@Dave is away until 2026-12-05 00:00 UTC (@Carol approves for them)", for each person waited on who is away. */
export function awayWords(n: StillNeeds): string {
  if (n.kind !== 'approvals' || !n.away?.length) return '';
  const each = n.away.map(
    (a) =>
      `${mention(a.user)} is away until ${utcMinute(a.until)} (${a.delegate ? `${mention(a.delegate)} approves for them` : 'nobody stands in'})`,
  );
  return `; ${each.join('; ')}`;
}

/** "1 more of @Carol or @Dave; must include @Erin", "2 admins to unfreeze (@Erin, @Dave)"… */
export function needsWords(n: StillNeeds): string {
  return needsOnly(n) + awayWords(n);
}

function needsOnly(n: StillNeeds): string {
  switch (n.kind) {
    case 'approvals': {
      const more = `${n.more} more approval${n.more === 1 ? '' : 's'}`;
      if (n.from.includes('*'))
        return `Needs ${more} from any approver${n.mustInclude.length ? `; must include ${orList(n.mustInclude, 'and')}` : ''}`;
      if (!n.from.length) return `Needs ${more}, and no approver is left who may give it: an admin should reject it`;
      if (n.onlyFrom)
        return `Needs ${more}: only ${orList(n.from)} may give ${n.more === 1 ? 'it' : 'them'} (its tier requires it)`;
      return `Needs ${n.more} more of ${orList(n.from)}${n.mustInclude.length ? `; must include ${orList(n.mustInclude, 'and')}` : ''}`;
    }
    case 'admin':
      return n.why === 'hold'
        ? `Needs an admin to send it anyway or reject it (${orList(n.who)})`
        : `Needs an admin to say whether it was sent (${orList(n.who)})`;
    case 'unfreeze':
      return `Every approval is in; sent once two admins unfreeze (${orList(n.who, 'and')})`;
    case 'sending':
      return 'Needs nothing more: it is being sent';
  }
}

/** "Exchange hot wallet (`0x1111…1111`)", or the shortened address when it has no label. */
export function payeeText(r: Pick<WithdrawalRequest, 'allowlist' | 'destination'>): string {
  const addr = outsideCode(shorten(r.destination, 6, 4));
  return r.allowlist.status === 'listed' && r.allowlist.label ? `${outside(r.allowlist.label, 80)} (${addr})` : addr;
}

/** The same payee for plain text (the confirmation dialog). */
export function payeePlain(r: Pick<WithdrawalRequest, 'allowlist' | 'destination'>): string {
  const addr = shorten(r.destination, 6, 4);
  return r.allowlist.status === 'listed' && r.allowlist.label
    ? `${outsidePlain(r.allowlist.label, 80)} (${addr})`
    : addr;
}

/**
 * One request of the queue, two lines: what and for whom, then where it stands and what it
 * still needs, held and frozen ones marked.
 */
export function queueLine(e: QueueEntry): string {
  const r = e.request;
  const left = e.leftMs === undefined ? '' : e.leftMs > 0 ? ` · ${shortDuration(e.leftMs)} left` : ' · expiring now';
  const what = `*${outside(amountText(r))}* on ${outside(r.network, 30)} to ${payeeText(r)} · requested by <@${r.requester}> ${shortDuration(e.ageMs)} ago${left}`;
  const marks = [
    stateLabel(r),
    ...(e.frozen && !e.held ? ['🛑 Frozen'] : []),
    ...(r.state === 'pending' && riskFlags(r).length ? [`⚠️ ${riskFlags(r).join(' · ')}`] : []),
  ];
  return `${what}\n${marks.join(' · ')} · ${needsWords(e.needs)}`;
}

/** The rows shown, at most `max`, and the sentence for the rest. */
export function cappedQueue(entries: readonly QueueEntry[], max: number, more: string): string[] {
  const lines = entries.slice(0, max).map((e) => `• ${queueLine(e)}`);
  if (entries.length > max) lines.push(`…and ${entries.length - max} more ${more}`);
  return lines;
}
