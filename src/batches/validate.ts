/**
 * Every row of a payout file checked before anything is requested, with the single form's own
 * rules (checkInput: amount, decimals, currency, network, address, e-mail, note), each problem
 * named by row, column and reason, all at once. Rows repeated within the file are flagged: the
 * later one names the earlier. Pure: the prices are a snapshot read by the caller.
 */
import type { Policy } from '../policy/schema.js';
import type { PriceSnapshot } from '../money/value.js';
import { NO_PRICES } from '../prices/value.js';
import { checkInput } from '../withdrawals/input.js';
import type { RequestRule } from '../withdrawals/types.js';
import { MAX_LABEL, MAX_REFERENCE, parsePayoutFile, type Column } from './csv.js';
import { canonicalRow } from './fingerprint.js';
import type { BatchError, BatchRow } from './types.js';

/** The file's column each rule of the single form belongs to. */
const COLUMN: Partial<Record<RequestRule, Column>> = {
  amount: 'amount',
  decimals: 'amount',
  tier: 'amount',
  currency: 'currency',
  network: 'network',
  destination: 'address',
  allowlist: 'address',
  client_email: 'client_email',
  note: 'note',
};

export type ValidatedFile = { ok: true; rows: BatchRow[] } | { ok: false; errors: BatchError[] };

export function validatePayoutFile(text: string, policy: Policy, prices: PriceSnapshot = NO_PRICES): ValidatedFile {
  const parsed = parsePayoutFile(text);
  if (!parsed.ok) return parsed;
  const errors: BatchError[] = [];
  const rows: BatchRow[] = [];
  const seen = new Map<string, number>();
  for (const { row, cells } of parsed.rows) {
    const checked = checkInput(
      policy,
      {
        amount: cells.amount,
        currency: cells.currency,
        network: cells.network,
        destination: cells.address,
        clientEmail: cells.client_email,
        note: cells.note,
      },
      prices,
    );
    if (cells.label.length > MAX_LABEL)
      errors.push({
        row,
        column: 'label',
        reason: `At most ${MAX_LABEL} characters (this one has ${cells.label.length}).`,
      });
    if (cells.reference.length > MAX_REFERENCE)
      errors.push({
        row,
        column: 'reference',
        reason: `At most ${MAX_REFERENCE} characters (this one has ${cells.reference.length}).`,
      });
    if (!checked.ok) {
      for (const p of checked.problems ?? [checked])
        errors.push({ row, column: COLUMN[p.rule] ?? 'amount', reason: p.message });
      continue;
    }
    // The same payout twice (same address, amount, currency, network, client and reference) is most
    // likely a copy-paste slip: flagged, for the requester to remove or tell apart with a reference.
    const key = canonicalRow({
      address: checked.destination,
      amount: checked.amount,
      currency: checked.currency.name,
      network: checked.network.name,
      clientEmail: checked.clientEmail,
      reference: cells.reference,
    });
    const first = seen.get(key);
    if (first !== undefined) {
      errors.push({
        row,
        column: 'address',
        reason: `The same payout as row ${first} (address, amount, currency, network, client and reference): remove one, or give each its own reference.`,
      });
      continue;
    }
    seen.set(key, row);
    rows.push({
      row,
      address: checked.destination,
      amount: checked.amount,
      currency: checked.currency.name,
      network: checked.network.name,
      clientEmail: checked.clientEmail,
      note: checked.note,
      label: cells.label,
      reference: cells.reference,
      valuation: checked.valuation ?? { kind: 'unknown', reason: 'no price was read', since: null },
    });
  }
  errors.sort((a, b) => a.row - b.row);
  return errors.length ? { ok: false, errors } : { ok: true, rows };
}

/**
 * The errors as a person reads them, one per line ("Row 7, amount: …"), bounded for a message.
 * A column and a reason may echo the file's own text: `text` escapes them for where they are shown
 * (the Slack face passes its mrkdwn escaping; the domain knows no Slack).
 */
export function errorLines(errors: readonly BatchError[], max = 50, text: (s: string) => string = (s) => s): string[] {
  const lines = errors
    .slice(0, max)
    .map((e) => (e.row === 0 ? `File: ${text(e.reason)}` : `Row ${e.row}, ${text(e.column)}: ${text(e.reason)}`));
  if (errors.length > max) lines.push(`…and ${errors.length - max} more (fix these first).`);
  return lines;
}
