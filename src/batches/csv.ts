/**
 * Reading a payout file: a header row naming the columns in any order, then one payout per row.
 * Pure: text in, raw rows (with the row number a spreadsheet shows: the header is row 1) or the
 * file's problems out. Every problem is named at once; nothing is judged here beyond the shape.
 */
import { parse } from 'csv-parse/sync';
import type { BatchError } from './types.js';

export const MAX_ROWS = 1_000;
export const MAX_BYTES = 1_000_000;

export const REQUIRED_COLUMNS = ['address', 'amount', 'currency', 'network', 'client_email'] as const;
export const OPTIONAL_COLUMNS = ['note', 'label', 'reference'] as const;
export type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const KNOWN: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];

/** Bounds of the optional columns (the note is the withdrawal's own, checked by the withdrawal rules). */
export const MAX_LABEL = 80;
export const MAX_REFERENCE = 100;

export interface RawRow {
  row: number;
  cells: Record<Column, string>;
}

export type ParsedFile = { ok: true; rows: RawRow[] } | { ok: false; errors: BatchError[] };

const fileError = (reason: string): ParsedFile => ({ ok: false, errors: [{ row: 0, column: 'file', reason }] });

export function parsePayoutFile(text: string): ParsedFile {
  if (Buffer.byteLength(text, 'utf8') > MAX_BYTES) return fileError('The file is over 1 MB.');
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      // The header, the most rows taken, and one more to tell the file is over: nothing past it is parsed.
      to: MAX_ROWS + 2,
    }) as unknown as typeof records;
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    return fileError(`The file is not valid CSV${line ? ` (near row ${line})` : ''}: ${(err as Error).message}.`);
  }
  const [head, ...body] = records;
  if (!head) return fileError('The file is empty: it needs a header row and at least one payout.');
  const names = head.record.map((h) => h.trim().toLowerCase());
  const errors: BatchError[] = [];
  names.forEach((n, i) => {
    if (!KNOWN.includes(n))
      errors.push({
        row: 1,
        column: n || `column ${i + 1}`,
        reason: `Unknown column "${n}". Columns: ${KNOWN.join(', ')}.`,
      });
    else if (names.indexOf(n) !== i) errors.push({ row: 1, column: n, reason: 'This column is named twice.' });
  });
  for (const c of REQUIRED_COLUMNS)
    if (!names.includes(c)) errors.push({ row: 1, column: c, reason: `The header has no "${c}" column.` });
  if (!body.length) errors.push({ row: 0, column: 'file', reason: 'The file has a header but no payout rows.' });
  if (body.length > MAX_ROWS)
    errors.push({
      row: 0,
      column: 'file',
      reason: `The file has over ${MAX_ROWS} rows; at most ${MAX_ROWS} are taken.`,
    });
  if (errors.length) return { ok: false, errors };
  const rows = body.map(({ record, info }) => {
    const cells = Object.fromEntries(KNOWN.map((c) => [c, ''])) as Record<Column, string>;
    names.forEach((n, i) => {
      cells[n as Column] = (record[i] ?? '').trim();
    });
    return { row: info.lines, cells, extra: record.length > names.length };
  });
  for (const r of rows)
    if (r.extra)
      errors.push({ row: r.row, column: 'file', reason: `This row has more cells than the header has columns.` });
  if (errors.length) return { ok: false, errors };
  return { ok: true, rows: rows.map(({ row, cells }) => ({ row, cells })) };
}
