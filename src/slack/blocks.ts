/**
 * Small Block Kit builders that respect Slack's limits, so no renderer can produce a
 * message Slack refuses (50 blocks, 3000 characters per section, 150 per header, 2000
 * per button value, 10 fields per section).
 */
import type { KnownBlock } from '@slack/types';
import { outside } from '../format/outside.js';

export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  headerText: 150,
  fieldText: 2000,
  fields: 10,
  buttonValue: 2000,
  contextElements: 10,
};

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, LIMITS.headerText), emoji: true } };
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

export function fields(pairs: Array<[string, string]>): KnownBlock {
  return {
    type: 'section',
    fields: pairs
      .slice(0, LIMITS.fields)
      .map(([k, v]) => ({ type: 'mrkdwn', text: truncate(`*${k}*\n${v}`, LIMITS.fieldText) })),
  };
}

export function context(...texts: string[]): KnownBlock {
  return {
    type: 'context',
    elements: texts
      .slice(0, LIMITS.contextElements)
      .map((t) => ({ type: 'mrkdwn', text: truncate(t, LIMITS.sectionText) })),
  };
}

export function divider(): KnownBlock {
  return { type: 'divider' };
}

export interface ButtonSpec {
  text: string;
  actionId: string;
  value: string;
  style?: 'primary' | 'danger';
}

export function actions(blockId: string, buttons: ButtonSpec[]): KnownBlock {
  return {
    type: 'actions',
    block_id: blockId,
    elements: buttons.map((b) => {
      if (b.value.length > LIMITS.buttonValue)
        throw new Error(`button ${b.actionId} value is longer than Slack allows`);
      return {
        type: 'button' as const,
        text: { type: 'plain_text' as const, text: b.text, emoji: true },
        action_id: b.actionId,
        value: b.value,
        ...(b.style ? { style: b.style } : {}),
      };
    }),
  };
}

/**
 * Pack lines into as few sections as possible without splitting a line, so a long list
 * stays within the per-section text limit.
 */
export function packLines(lines: string[], max = LIMITS.sectionText): KnownBlock[] {
  const out: KnownBlock[] = [];
  let current = '';
  for (const raw of lines) {
    const line = truncate(raw, max);
    if (current && current.length + 1 + line.length > max) {
      out.push(section(current));
      current = line;
    } else {
      current = current ? `${current}\n${line}` : line;
    }
  }
  if (current) out.push(section(current));
  return out;
}

/** "0x1234…abcd": enough to recognise an address or hash at a glance. */
export function shorten(value: string, head = 6, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/** A mrkdwn link, or plain text when there is no usable URL; `text` is escaped as outside text. */
export function link(url: string | undefined | null, text: string): string {
  return url && /^https?:\/\/[^\s<>]+$/.test(url)
    ? `<${url.replace(/[|>]/g, encodeURIComponent)}|${outside(text)}>`
    : outside(text);
}

/** A policy principal as Slack shows it: a user, a user group, or (for "*") what the caller says everyone is. */
export function mention(id: string, everyone = '<!here>'): string {
  return id === '*' ? everyone : id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`;
}
