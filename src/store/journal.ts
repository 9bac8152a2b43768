/**
 * The journal file `journal.jsonl`: one line per commit, `{"seq":n,"ops":[...]}`, with
 * consecutive seqs. A line is complete only with its newline; a crash mid-append leaves at
 * most one torn line at the end, which was never acknowledged and is dropped on open.
 */
import fs from 'node:fs/promises';
import { StoreCorruptError } from './errors.js';
import { errorCode } from './durable-fs.js';

export type JournalOp = { op: 'put'; c: string; id: string; v: unknown } | { op: 'del'; c: string; id: string };

export interface JournalEntry {
  seq: number;
  ops: JournalOp[];
}

/** An op whose value is already serialized, so a commit stringifies each value once. */
export type EncodedOp = { op: 'put'; c: string; id: string; json: string } | { op: 'del'; c: string; id: string };

export function encodeLine(seq: number, ops: readonly EncodedOp[]): string {
  const parts = ops.map((o) =>
    o.op === 'put'
      ? `{"op":"put","c":${JSON.stringify(o.c)},"id":${JSON.stringify(o.id)},"v":${o.json}}`
      : `{"op":"del","c":${JSON.stringify(o.c)},"id":${JSON.stringify(o.id)}}`,
  );
  // JSON.stringify escapes newlines inside strings, so the line has exactly one, at its end.
  return `{"seq":${seq},"ops":[${parts.join(',')}]}\n`;
}

export interface JournalContents {
  entries: JournalEntry[];
  /** Length of the well-formed prefix; anything after it is a torn tail. */
  validBytes: number;
  totalBytes: number;
  /** Byte offset just after each entry's line (lineEnds[i] ends entries[i]). */
  lineEnds?: number[];
}

export async function readJournal(file: string): Promise<JournalContents> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return { entries: [], validBytes: 0, totalBytes: 0 };
    throw err;
  }
  const entries: JournalEntry[] = [];
  const lineEnds: number[] = [];
  let pos = 0;
  let lineNo = 0;
  // 0x0a never occurs inside a multi-byte UTF-8 sequence, so splitting bytes is safe.
  for (let nl = buf.indexOf(0x0a, pos); nl !== -1; nl = buf.indexOf(0x0a, pos)) {
    lineNo++;
    const isLast = nl + 1 === buf.length;
    let parsed: unknown;
    try {
      parsed = JSON.parse(buf.toString('utf8', pos, nl));
    } catch {
      // The final line can be garbage after a crash (a partly written block reads as zeros).
      // Anywhere else it would mean losing commits that were acknowledged: refuse.
      if (isLast) break;
      throw new StoreCorruptError(
        `journal ${file} is corrupt at line ${lineNo} (byte ${pos}): not valid JSON, and later lines follow it. ` +
          'Refusing to open rather than drop committed data; restore the directory from a backup or repair that line by hand.',
        file,
        pos,
      );
    }
    entries.push(checkEntry(parsed, file, lineNo, pos, entries.at(-1)?.seq));
    pos = nl + 1;
    lineEnds.push(pos);
  }
  return { entries, validBytes: pos, totalBytes: buf.length, lineEnds };
}

function checkEntry(v: unknown, file: string, lineNo: number, pos: number, prevSeq: number | undefined): JournalEntry {
  const bad = (why: string) =>
    new StoreCorruptError(
      `journal ${file} is corrupt at line ${lineNo} (byte ${pos}): ${why}. Refusing to open rather than guess; restore the directory from a backup.`,
      file,
      pos,
    );
  if (!v || typeof v !== 'object') throw bad('not a commit record');
  const { seq, ops } = v as { seq?: unknown; ops?: unknown };
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw bad('missing or invalid seq');
  if (prevSeq !== undefined && seq !== prevSeq + 1)
    throw bad(`seq ${seq} follows ${prevSeq} (commits missing or out of order)`);
  if (!Array.isArray(ops)) throw bad('missing ops');
  for (const op of ops as unknown[]) {
    const o = op as { op?: unknown; c?: unknown; id?: unknown } | null;
    if (
      !o ||
      typeof o.c !== 'string' ||
      typeof o.id !== 'string' ||
      (o.op !== 'del' && !(o.op === 'put' && 'v' in o))
    ) {
      throw bad('malformed op');
    }
  }
  return { seq, ops: ops as JournalOp[] };
}
