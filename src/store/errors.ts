/** Errors the store raises; each message says what happened, where, and what to do. */

/** The data on disk cannot be read without guessing; the store refuses to open rather than lose commits. */
export class StoreCorruptError extends Error {
  override name = 'StoreCorruptError';
  constructor(
    message: string,
    readonly file: string,
    readonly byteOffset?: number,
  ) {
    super(message);
  }
}

export class StoreClosedError extends Error {
  override name = 'StoreClosedError';
  constructor(dir: string) {
    super(`store ${dir} is closed`);
  }
}

/**
 * Writing the journal failed (disk full, I/O error). Memory may now be ahead of the disk,
 * so every later commit is refused: the process should exit and restart from the disk.
 */
export class StoreFailedError extends Error {
  override name = 'StoreFailedError';
  constructor(dir: string, cause: unknown) {
    super(
      `store ${dir} can no longer write its journal (${cause instanceof Error ? cause.message : String(cause)}); ` +
        'restart the process to reload the state from disk',
      { cause },
    );
  }
}
