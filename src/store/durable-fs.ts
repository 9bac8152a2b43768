/**
 * The few file-system moves that make a write survive a crash or a power cut: a write is
 * only durable once fsync returned, and a new or renamed name only once its directory
 * was fsynced too.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** write(2) may write fewer bytes than asked; loop until the whole buffer is out. */
export async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

/** The store's test seam (StoreOptions.writeGate): an error returned for a stage is thrown there instead of doing the I/O. */
export type WriteGate = (stage: WriteStage) => Error | undefined;
export type WriteStage = 'write' | 'partial' | 'sync' | 'probe' | 'snapshot' | 'dirsync' | 'cut';

export async function fsyncDir(dir: string, gate?: WriteGate): Promise<void> {
  const refused = gate?.('dirsync');
  if (refused) throw refused;
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

/** Create or replace `file` with `data` and fsync it. The caller makes the name durable. */
export async function writeFileSynced(file: string, data: Buffer | string): Promise<void> {
  const fh = await fs.open(file, 'w');
  try {
    await writeAll(fh, typeof data === 'string' ? Buffer.from(data) : data);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await fs.rm(file, { force: true }).catch(() => {});
    throw err;
  }
  await fh.close();
}

/** Replace `file` atomically: readers and crashes see the old content or the new, never a mix. */
export async function replaceFileDurably(
  file: string,
  tmp: string,
  data: Buffer | string,
  dir: string,
  gate?: WriteGate,
): Promise<void> {
  const refused = gate?.('snapshot');
  if (refused) throw refused;
  await writeFileSynced(tmp, data);
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
  // A failure from here on leaves the new content under the name, whole, but the name itself
  // may not survive a crash: callers must not treat `file` as durable until a dir fsync succeeds.
  await fsyncDir(dir, gate);
}

export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
