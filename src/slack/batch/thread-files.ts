/**
 * The files of a batch payout's thread (the rows file at the request, the result file at the end),
 * owed durably: the commit of the event records the file as owed, and it is uploaded once the
 * card's ts is known, by the call right after the event or, after a restart, by the batches job
 * (`uploadOwed`). As the monthly export does (src/transactions/monthly.ts), an attempt is marked
 * `uploading` before the file goes out and `uploaded` right after; an attempt whose answer was lost
 * is looked for in the thread before another is made, so a file lands once. Only a file Slack
 * shows late in the thread could be uploaded twice (at least once, never none).
 */
import type { Logger } from '../../log.js';
import { serializeError } from '../../log.js';
import type { Outbox } from '../../outbox/index.js';
import { collection, type Store, type Tx } from '../../store/index.js';

export interface FileUploader {
  files: {
    uploadV2(args: {
      channel_id: string;
      thread_ts: string;
      filename: string;
      content: string;
      initial_comment?: string;
    }): Promise<unknown>;
  };
  conversations?: {
    replies(args: {
      channel: string;
      ts: string;
      limit?: number;
    }): Promise<{ messages?: Array<{ files?: Array<{ name?: string }> }> }>;
  };
}

export type ThreadFileKind = 'rows' | 'results';

/** A file owed to a batch's thread; the persisted name must never change. */
export interface OwedFile {
  key: string;
  batch: string;
  kind: ThreadFileKind;
  state: 'owed' | 'uploading' | 'uploaded';
  owedAt: string;
  attempts: number;
  markedAt?: string;
  uploadedAt?: string;
}
export const BATCH_FILES = collection<OwedFile>('batch_thread_files');

export interface ThreadFile {
  name: string;
  /** The file's text, or undefined while it cannot be written yet (the results while rows are in flight). */
  content: () => string | undefined;
  comment: string;
}

const keyOf = (batch: string, kind: ThreadFileKind) => `${batch}:${kind}`;

/** In the event's commit: the file is owed (once: an owed or uploaded file is not owed again). */
export function oweFile(tx: Tx, batch: string, kind: ThreadFileKind, at: string): void {
  const key = keyOf(batch, kind);
  if (!tx.get(BATCH_FILES, key)) tx.put(BATCH_FILES, key, { key, batch, kind, state: 'owed', owedAt: at, attempts: 0 });
}

export function threadFiles(o: {
  store: Store;
  outbox: Outbox;
  slack?: FileUploader | undefined;
  logger: Logger;
  now: () => number;
  cardKey: (batch: string) => string;
  file: (batch: string, kind: ThreadFileKind) => ThreadFile;
}) {
  const busy = new Set<string>();
  const update = (key: string, patch: Partial<OwedFile>) =>
    o.store.commit((tx) => {
      const cur = tx.get(BATCH_FILES, key);
      if (cur) tx.put(BATCH_FILES, key, { ...cur, ...patch });
    });

  async function landed(channel: string, ts: string, name: string): Promise<boolean> {
    const res = await o.slack?.conversations?.replies({ channel, ts, limit: 1000 });
    return (res?.messages ?? []).some((m) => m.files?.some((f) => f.name === name));
  }

  async function upload(rec: OwedFile): Promise<void> {
    const card = o.outbox.message(o.cardKey(rec.batch));
    const file = o.file(rec.batch, rec.kind);
    const content = file.content();
    // The card not posted yet (the outbox paces), or the results not final: a later call uploads it.
    if (!o.slack || !card?.ts || !card.channel || content === undefined) return;
    if (rec.state === 'uploading' && (await landed(card.channel, card.ts, file.name))) {
      await update(rec.key, { state: 'uploaded', uploadedAt: new Date(o.now()).toISOString() });
      return;
    }
    await update(rec.key, {
      state: 'uploading',
      attempts: rec.attempts + 1,
      markedAt: new Date(o.now()).toISOString(),
    });
    await o.slack.files.uploadV2({
      channel_id: card.channel,
      thread_ts: card.ts,
      filename: file.name,
      content,
      initial_comment: file.comment,
    });
    await update(rec.key, { state: 'uploaded', uploadedAt: new Date(o.now()).toISOString() });
  }

  /** Every file owed whose card is posted: uploaded, one attempt at a time per file. */
  async function uploadOwed(batch?: string): Promise<void> {
    const owed = o.store.find(BATCH_FILES, (f) => f.state !== 'uploaded' && (!batch || f.batch === batch));
    for (const rec of owed) {
      if (busy.has(rec.key)) continue;
      busy.add(rec.key);
      try {
        await upload(rec);
      } catch (err) {
        o.logger.warn(
          { err: serializeError(err), batch: rec.batch, file: rec.kind },
          'could not upload a batch payout file; it is tried again',
        );
      } finally {
        busy.delete(rec.key);
      }
    }
  }

  return { uploadOwed };
}
