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
 * The store cannot make memory equal to the disk any more: reading the state back after a
 * failed write failed, or the journal could not be reopened after a snapshot. Every later
 * commit is refused: the process should exit and restart from the disk. (A write the disk
 * refuses is not this: see StoreUnavailableError.)
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

/** Why the disk refused a write, in words a person can act on. */
export type UnavailableReason = 'disk_full' | 'quota' | 'read_only' | 'io' | 'other';

const REASONS: ReadonlyMap<string, UnavailableReason> = new Map([
  ['ENOSPC', 'disk_full'],
  ['EDQUOT', 'quota'],
  ['EROFS', 'read_only'],
  ['EIO', 'io'],
]);

function unavailableReason(cause: unknown): UnavailableReason {
  const code = (cause as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && REASONS.get(code)) || 'other';
}

/**
 * A write to the disk failed (disk full, quota, read-only, I/O error). The commits that were
 * not yet durable were undone (memory equals the disk again) and rejected with this error;
 * until a probe write succeeds the store refuses commits at once with it, then resumes by
 * itself. Reads keep working throughout.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly code: string | undefined;
  readonly reason: UnavailableReason;
  constructor(dir: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const reason = unavailableReason(cause);
    super(
      `store ${dir} cannot write right now (${cause instanceof Error ? cause.message : String(cause)}); ` +
        'nothing was changed, and it retries by itself',
      { cause },
    );
    this.code = typeof code === 'string' ? code : undefined;
    this.reason = reason;
  }
}
