/**
 * The store part. It tells listeners registered later (the withdrawals part) when the disk
 * takes writes again after refusing them, so nothing has to be built before the store.
 */
import type { Logger } from '../log.js';
import { openStore, type Store, type StoreOptions } from '../store/index.js';
import type { CleanupStack } from './cleanup.js';

export interface StorePart {
  store: Store;
  /** Called every time the store can write again after refusing writes. */
  onWritable(listener: () => void): void;
}

export async function buildStore(
  o: {
    dir: string;
    logger: Logger;
    onFatal: ((err: Error) => void) | undefined;
    options: Pick<StoreOptions, 'probeIntervalMs' | 'writeGate'> | undefined;
    onCommitDurable?: StoreOptions['onCommitDurable'];
  },
  cleanup: CleanupStack,
): Promise<StorePart> {
  const listeners: Array<() => void> = [];
  const store = await openStore({
    dir: o.dir,
    logger: o.logger.child({ component: 'store' }),
    onFailure: o.onFatal,
    onWritable: () => {
      for (const l of listeners) l();
    },
    onCommitDurable: o.onCommitDurable,
    ...o.options,
  });
  cleanup.push(() => store.close());
  return { store, onWritable: (l) => listeners.push(l) };
}
