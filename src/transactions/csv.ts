/**
 * Every export file is written here: RFC 4180 (csv-stringify), CRLF, and safe to open in a
 * spreadsheet. Text from the wallet service (addresses, hashes, references, network names) can
 * begin with = + - @, a tab or a carriage return, which Excel and its kin run as a formula
 * ("CSV injection", https://owasp.org/www-community/attacks/CSV_Injection): such a text cell
 * gets a leading ' (csv-stringify's `escape_formulas`), which the spreadsheet shows as text.
 *
 * Amount columns are exempt, or a withdrawal's "-0.1" would become text and the accounting
 * tool would not read it as a number; but only when the cell is a plain decimal number: an
 * amount field that holds anything else is escaped like any other text.
 *
 * Every other cell is outside text made a cell by `outsideCell` (src/format/outside.ts, the one
 * escape family): one line (a line break or control character in a note or label becomes a
 * space, so no cell spills into a fake row in tools that read lines), cut to CELL_MAX
 * characters, readable (no entities), and the formula guard above.
 */
import { stringify } from 'csv-stringify/sync';
import { outsideCell } from '../format/outside.js';

/** Longest text cell: any address, hash, reference or note the service keeps. */
export const CELL_MAX = 1000;

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The file's text: `rows[0]` is the header; cells under a header named in `amountColumns` keep a numeric lead. */
export function csvFile(rows: readonly (readonly string[])[], amountColumns: readonly string[]): string {
  const header = rows[0] ?? [];
  const amounts = new Set(header.flatMap((h, i) => (amountColumns.includes(h) ? [i] : [])));
  return stringify(rows as string[][], {
    record_delimiter: '\r\n',
    // outsideCell guards formulas itself (a leading = + - @, blanks before them included).
    escape_formulas: false,
    cast: {
      string: (value, ctx) => (amounts.has(ctx.index) && DECIMAL.test(value) ? value : outsideCell(value, CELL_MAX)),
    },
  });
}
