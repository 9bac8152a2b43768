/**
 * lowdb adapter for the snapshot. Not lowdb's JSONFile preset: that one silently keeps
 * data in memory under NODE_ENV=test and does not fsync. Here a write goes to a temp file
 * in the same directory, is fsynced, renamed over the old file, and the directory fsynced,
 * so after a crash the file holds the old snapshot or the new one, whole.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { errorCode, replaceFileDurably, type WriteGate } from './durable-fs.js';
import { StoreCorruptError } from './errors.js';

export class DurableJsonFile<T> implements Adapter<T> {
  /** Size of the file as last read or written. */
  bytes = 0;
  readonly tmp: string;
  /** The store's test seam, set by the store that owns this file. */
  gate: WriteGate | undefined;

  constructor(readonly file: string) {
    this.tmp = `${file}.tmp`;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
    this.bytes = Buffer.byteLength(text);
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      // Snapshots are replaced atomically, so a bad one is damage, not a crash artifact.
      throw new StoreCorruptError(
        `snapshot ${this.file} is not valid JSON (${(err as Error).message}); restore the directory from a backup`,
        this.file,
      );
    }
  }

  async write(data: T): Promise<void> {
    // Serialized before the first await: the caller's data may change once we yield.
    const buf = Buffer.from(JSON.stringify(data));
    await replaceFileDurably(this.file, this.tmp, buf, path.dirname(this.file), this.gate);
    this.bytes = buf.length;
  }
}
