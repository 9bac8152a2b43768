/**
 * What an outbox entry of a withdrawal's thread or DMs carries (its `ref`), typed: the notifier
 * encodes, the renderers decode, in this one module. The encoded form is the one stored in the
 * outbox since before it was typed (`id|kind|detail`, `id|event`, `id|approver`), so entries
 * queued by an earlier version decode too.
 */
import { mention } from '../blocks.js';

/** The thread lines under a withdrawal's card. `mentions` are Slack ids (users, groups, or `*` for @here). */
export type ThreadLine =
  | { kind: 'approved'; id: string; user: string }
  | { kind: 'reminder' | 'policy' | 'held' | 'notice-disagreed'; id: string; mentions: readonly string[] }
  | { kind: 'released'; id: string }
  | {
      kind: 'confirmation' | 'contradiction' | 'double-payment' | 'double-payment-original';
      id: string;
      /** The wallet service's status, as reported (any text). */
      status: string;
      mentions: readonly string[];
    }
  /** A kind this version does not know (an entry queued by another version): shown as it was. */
  | { kind: 'other'; id: string; name: string; detail: string };

/** The requester's DM for one event of their request. */
export type DmEvent =
  | 'requested'
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'expired'
  | 'released'
  | 'unknown'
  | 'resolved'
  | 'held';

export type DmRef = { id: string; event: string };
export type ApproverDmRef = { id: string; approver: string };

/** A mention our own code appends to a thread ref: a user, a user group, or @here; nothing else. */
const MENTION_TOKEN = /^<(@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+|!here)>$/;

/** Back from a mention token to the id `mention()` made it from. */
function mentionId(token: string): string | undefined {
  const m = MENTION_TOKEN.exec(token)?.[1];
  if (!m) return undefined;
  if (m === '!here') return '*';
  return m.startsWith('@') ? m.slice(1) : m.slice('!subteam^'.length);
}

const mentionText = (ids: readonly string[]) => ids.map((id) => mention(id)).join(' ');

/** Only the mentions in our own forms, whatever else the text holds. */
const mentionsIn = (tokens: readonly string[]): string[] =>
  tokens.flatMap((t) => {
    const id = mentionId(t);
    return id === undefined ? [] : [id];
  });

/**
 * A status as its first word: URI-encoded, so one holding spaces or `|` cannot pose as mentions
 * or fields. For a possible double payment an empty status is "-" (a literal "-" is "%2D").
 */
const encodeStatus = (status: string, dash: boolean) =>
  dash ? (status === '' ? '-' : status === '-' ? '%2D' : encodeURIComponent(status)) : encodeURIComponent(status);

function decodeStatus(raw: string, dash: boolean): string {
  if (dash && raw === '-') return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // an older ref's raw status
  }
}

export function encodeThreadLine(line: ThreadLine): string {
  switch (line.kind) {
    case 'approved':
      return `${line.id}|approved|${line.user}`;
    case 'reminder':
    case 'policy':
    case 'held':
    case 'notice-disagreed':
      return `${line.id}|${line.kind}|${mentionText(line.mentions)}`;
    case 'released':
      return `${line.id}|released`;
    case 'confirmation':
    case 'contradiction': {
      const call = line.mentions.length ? ` ${mentionText(line.mentions)}` : '';
      return `${line.id}|${line.kind}|${encodeStatus(line.status, false)}${call}`;
    }
    case 'double-payment':
    case 'double-payment-original':
      return `${line.id}|${line.kind}|${`${encodeStatus(line.status, true)} ${mentionText(line.mentions)}`.trim()}`;
    case 'other':
      return `${line.id}|${line.name}|${line.detail}`;
  }
}

export function decodeThreadLine(ref: string): ThreadLine {
  const [id = '', kind = '', ...rest] = ref.split('|');
  // The detail is the rest (a `|` in an old ref's raw status stays in it).
  const detail = rest.join('|');
  switch (kind) {
    case 'approved':
      return { kind, id, user: detail };
    case 'reminder':
    case 'policy':
    case 'held':
    case 'notice-disagreed':
      return { kind, id, mentions: mentionsIn(detail.split(' ')) };
    case 'released':
      return { kind, id };
    case 'confirmation':
    case 'contradiction':
    case 'double-payment':
    case 'double-payment-original': {
      const [raw = '', ...words] = detail.split(' ');
      const dash = kind.startsWith('double-payment');
      return { kind, id, status: decodeStatus(raw, dash), mentions: mentionsIn(words) };
    }
    default:
      return { kind: 'other', id, name: kind, detail };
  }
}

/** The mentions a line calls, as the thread shows them (`<@U1> <!here>`). */
export const callText = (mentions: readonly string[]) => mentionText(mentions);

export const encodeDmRef = (ref: { id: string; event: DmEvent }) => `${ref.id}|${ref.event}`;
export function decodeDmRef(ref: string): DmRef {
  const [id = '', event = ''] = ref.split('|');
  return { id, event };
}

export const encodeApproverDmRef = (ref: ApproverDmRef) => `${ref.id}|${ref.approver}`;
export function decodeApproverDmRef(ref: string): ApproverDmRef {
  const [id = '', approver = ''] = ref.split('|');
  return { id, approver };
}
