/**
 * The passkey pages, drawn on the server: the enrolment page and the confirmation page, which
 * shows exactly what is being approved. Everything shown is escaped (html``); the pages run only
 * their own scripts (a strict CSP, no inline script or style), and the token reaches the script
 * through a data attribute, never through markup it could break out of.
 */
import { formatFiat } from '../../format/fiat.js';
import { formatAmount } from '../../format/amount.js';
import { currentAndJudged } from '../../format/judged.js';
import { networkWithStandard } from '../../format/network.js';
import { utcMinute } from '../../format/time.js';
import type { Batch } from '../../batches/types.js';
import type { WithdrawalRequest } from '../../withdrawals/types.js';
import type { Valuation } from '../../prices/types.js';
import { sumValues } from '../../prices/value.js';

/** Text as HTML text or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const IN_APP_BROWSER =
  'If nothing happens when you press the button, this may be an in-app browser (Slack’s own, for example) that cannot use passkeys: ' +
  'open this link in your system browser (Safari, Chrome, Edge or Firefox) and try again.';

function page(title: string, body: string, script?: { src: string; token: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Treasury</title>
<link rel="stylesheet" href="/passkeys/static/passkeys.css">
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
${
  script
    ? `<script src="/passkeys/static/webauthn.js"></script>
<script type="module" src="/passkeys/static/${script.src}" data-token="${escapeHtml(script.token)}" id="passkey-script"></script>`
    : ''
}
</body>
</html>
`;
}

/** A link that cannot be used (expired, used, unknown): what happened and what to do, nothing else. */
export const messagePage = (title: string, message: string): string =>
  page(title, `<p class="status refused" role="alert">${escapeHtml(message)}</p>`);

export function enrolPage(o: { token: string; who: string; expiresAt: number }): string {
  return page(
    'Set up a passkey',
    `<p>For <strong>${escapeHtml(o.who)}</strong>: a passkey or security key confirms your approvals of large withdrawals. ` +
      `This link works once, until ${escapeHtml(utcMinute(o.expiresAt))}.</p>
<label for="name">Name it (so you can tell your keys apart)</label>
<input id="name" maxlength="40" autocomplete="off" placeholder="Laptop, YubiKey…">
<button id="go" type="button">Set up a passkey</button>
<p id="status" class="status" role="status" aria-live="polite"></p>
<p class="hint">${escapeHtml(IN_APP_BROWSER)}</p>`,
    { src: 'enrol.js', token: o.token },
  );
}

function valueWords(v: Valuation | undefined, currency: string): string {
  if (v?.kind !== 'known') return `unknown (${v?.kind === 'unknown' ? v.reason : 'no price'})`;
  return v.judged ? currentAndJudged(v, currency) : formatFiat(v.usd, { approx: true });
}

export interface ConfirmFacts {
  token: string;
  request: WithdrawalRequest;
  valuation: Valuation | undefined;
  requesterName: string;
  approverName: string;
  expiresAt: number;
}

export function confirmPage(f: ConfirmFacts): string {
  const r = f.request;
  const label = r.allowlist.label;
  return confirmBody(f, 'this withdrawal', [
    ['Amount', formatAmount(r.amount, r.currency)],
    ['Value', valueWords(f.valuation, r.currency)],
    ['Network', networkWithStandard(r.network)],
    ['Destination', r.destination],
    ['Destination label', label ?? 'not on the allowlist'],
    ['Client', r.clientEmail],
    ['Requested by', f.requesterName],
    ['Note', r.note || '(none)'],
  ]);
}

/**
 * The batch's value: one currency as a single request's; several, their value in all and each
 * currency's total with its own value (a mixed batch's sum alone hides which part is worth what).
 */
function batchValueWords(b: Batch): string {
  const currencies = Object.entries(b.totals.perCurrency);
  if (currencies.length < 2) return valueWords(b.totals.value, currencies[0]?.[0] ?? '');
  const parts = currencies.map(([c, amount]) => {
    const v = sumValues(b.rows.filter((r) => r.currency === c).map((r) => r.valuation));
    return `${formatAmount(amount, c)}: ${valueWords(v, c)}`;
  });
  return `${valueWords(b.totals.value, '')} in all (${parts.join('; ')})`;
}

/** A batch payout's approval: its rows, its total, the file and its sha256, which the passkey signs. */
export function batchConfirmPage(f: Omit<ConfirmFacts, 'request' | 'valuation'> & { batch: Batch }): string {
  const b = f.batch;
  const totals = Object.entries(b.totals.perCurrency).map(([c, a]) => formatAmount(a, c));
  return confirmBody(f, 'this batch payout', [
    ['Rows', String(b.rows.length)],
    ['Total', totals.join(', ')],
    ['Value', batchValueWords(b)],
    ['File', b.fileName],
    ['File SHA-256', b.sha256],
    ['New destinations', `${b.newDestinations} of ${b.rows.length} rows`],
    ['Requested by', f.requesterName],
  ]);
}

function confirmBody(
  f: Pick<ConfirmFacts, 'token' | 'approverName' | 'expiresAt'>,
  what: string,
  rows: Array<[string, string]>,
): string {
  return page(
    'Confirm your approval',
    `<p><strong>${escapeHtml(f.approverName)}</strong>, you are approving ${what}. Check every line: your passkey signs exactly these.</p>
<dl id="summary">
${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('\n')}
</dl>
<p>This confirmation works once, until ${escapeHtml(utcMinute(f.expiresAt))}.</p>
<button id="go" type="button">Confirm with your passkey</button>
<p id="status" class="status" role="status" aria-live="polite"></p>
<p class="hint">${escapeHtml(IN_APP_BROWSER)}</p>`,
    { src: 'confirm.js', token: f.token },
  );
}
