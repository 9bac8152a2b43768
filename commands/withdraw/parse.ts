/** `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`: split into a request. */
import { words } from '../../src/slack/text.js';
import type { RequestInput } from '../../src/withdrawals/index.js';

export const USAGE =
  'Usage: `/withdraw` opens a form, or `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`';

export function parseOneLine(text: string): { ok: true; input: RequestInput } | { ok: false; error: string } {
  const w = words(text);
  if (w.length < 5)
    return {
      ok: false,
      error: `expected at least 5 values (amount, currency, network, destination, client e-mail), got ${w.length}`,
    };
  const [amount, currency, network, destination, clientEmail, ...note] = w as [
    string,
    string,
    string,
    string,
    string,
    ...string[],
  ];
  return { ok: true, input: { amount, currency, network, destination, clientEmail, note: note.join(' ') } };
}
