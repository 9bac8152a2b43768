/**
 * `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`: split into a
 * request. Values left out are passed empty, so the withdrawal service names every missing or
 * wrong one in one answer (never one problem per attempt).
 */
import { outside, outsideCode } from '../../src/format/outside.js';
import { words } from '../../src/slack/text.js';
import type { Problem, RequestInput } from '../../src/withdrawals/index.js';
import { type FIELDS, RULE_FIELD } from './modals.js';

export const USAGE =
  'Usage: `/withdraw` opens a form, or `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`';

export function parseOneLine(text: string): RequestInput {
  const [amount = '', currency = '', network = '', destination = '', clientEmail = '', ...note] = words(text);
  return { amount, currency, network, destination, clientEmail, note: note.join(' ') };
}

/**
 * An amount typed with spaces between its thousands ("1 000", "12 500.50"): read as three values,
 * it would be refused as an unknown currency "000" and an unknown network "USDT". Recognised
 * here (a group of one to three digits, then groups of exactly three, the last with decimals)
 * so the answer says what is wrong; the amount is not guessed and nothing is requested.
 */
export function spacedAmount(text: string): { typed: string; joined: string } | undefined {
  const w = words(text);
  if (!/^\d{1,3}$/.test(w[0] ?? '')) return undefined;
  let n = 1;
  while (n < w.length && /^\d{3}$/.test(w[n]!)) n++;
  if (n < w.length && /^\d{3}[.,]\d+$/.test(w[n]!)) n++;
  if (n === 1) return undefined;
  const parts = w.slice(0, n);
  return { typed: parts.join(' '), joined: parts.join('') };
}

/** The answer to a spaced amount, with the amount as it should be written. */
export function spacedAmountText(s: { typed: string; joined: string }): string {
  return `Write the amount without spaces: \`${s.joined}\`, not \`${s.typed}\`.`;
}

const LABELS: Record<keyof typeof FIELDS, string> = {
  amount: 'Amount',
  currency: 'Currency',
  network: 'Network',
  destination: 'Destination',
  client: 'Client e-mail',
  note: 'Note',
};

/**
 * The domain's words quote what was typed ("Unknown currency "*<!here>*""): through the house
 * escape, so it adds no mention, link or formatting. The domain's own code spans (a reference,
 * "ref `a1b2`") stay code spans; a span typed into a value is shown as code too, which formats
 * nothing and links nothing.
 */
const MAX_MESSAGE = 1000;
const CODE_SPAN = /(`[^`\n]*`)/;
const escaped = (message: string) =>
  message
    .split(CODE_SPAN)
    .map((part, i) => (i % 2 === 1 ? outsideCode(part.slice(1, -1), MAX_MESSAGE) : outside(part, MAX_MESSAGE)))
    .join('');

/** A refusal in one reply: the one problem as a sentence, or every problem on its own line, named by its value. */
export function problemsText(refusal: Problem & { problems?: readonly Problem[] }): string {
  const all = refusal.problems ?? [refusal];
  if (all.length === 1) return escaped(all[0]!.message);
  const lines = all.map((p) => `• ${LABELS[RULE_FIELD[p.rule]]}: ${escaped(p.message)}`);
  return `${all.length} things to fix:\n${lines.join('\n')}`;
}
