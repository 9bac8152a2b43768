/**
 * Every collection the app persists, by handle: the names are what existing data directories
 * hold, so they must never change, and no two handles may share one (each record type is
 * declared once). The `@ts-expect-error` lines are checked by `tsc`: the store takes handles,
 * never bare names, and a handle types what it reads and writes.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS } from '../../src/alerts/types.js';
import { UNKNOWN_COLLECTIONS } from '../../src/alerts/unknown.js';
import { WATERMARK } from '../../src/alerts/watermark.js';
import { AUDIT_COLLECTION, AUDIT_HEAD_COLLECTION } from '../../src/audit/log.js';
import { COLLECTIONS as OUTBOX_COLLECTIONS } from '../../src/outbox/types.js';
import { openStore, type Tx } from '../../src/store/index.js';
import { SETTINGS } from '../../src/webhooks/settings.js';
import { SCREENING_LIST } from '../../src/screening/service.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import { removeTempDirs, tempDir } from './helpers.js';

const ALL: Record<string, string> = {
  withdrawals: WITHDRAWALS,
  audit: AUDIT_COLLECTION,
  'audit head': AUDIT_HEAD_COLLECTION,
  settings: SETTINGS,
  'webhook events': ALERT_COLLECTIONS.events,
  alerts: ALERT_COLLECTIONS.alerts,
  'alert keys': ALERT_COLLECTIONS.keys,
  'unknown windows': UNKNOWN_COLLECTIONS.windows,
  'unknown channels': UNKNOWN_COLLECTIONS.channels,
  'alerts meta': WATERMARK.collection,
  'outbox entries': OUTBOX_COLLECTIONS.entries,
  'outbox messages': OUTBOX_COLLECTIONS.messages,
  'outbox bursts': OUTBOX_COLLECTIONS.bursts,
  'outbox batches': OUTBOX_COLLECTIONS.batches,
  'outbox meta': OUTBOX_COLLECTIONS.meta,
  'sanctions list': SCREENING_LIST,
};

// Compile-time checks, never called: `tsc --noEmit` (run by .ci/run) fails unless each
// marked line is an error.
export function misuse(tx: Tx): void {
  // @ts-expect-error a bare name is not a collection
  tx.get('settings', 'webhookSecret');
  // @ts-expect-error the value must have the collection's type
  tx.put(OUTBOX_COLLECTIONS.meta, 'seq', { seq: 'eight' });
  // @ts-expect-error settings ids are fixed, each with its own shape
  tx.put(SETTINGS, 'webhookRegistration', { value: 'x' });
  // @ts-expect-error and there are no others
  tx.get(SETTINGS, 'webhookSecrets');
}

describe('collection handles', () => {
  it('keep the persisted names of existing data directories', () => {
    expect(ALL).toEqual({
      withdrawals: 'withdrawals',
      audit: 'audit',
      'audit head': 'audit_head',
      settings: 'settings',
      'webhook events': 'webhook_events',
      alerts: 'alerts',
      'alert keys': 'alert_keys',
      'unknown windows': 'alerts_unknown_windows',
      'unknown channels': 'alerts_unknown_channels',
      'alerts meta': 'alerts_meta',
      'outbox entries': 'outbox',
      'outbox messages': 'outbox_messages',
      'outbox bursts': 'outbox_bursts',
      'outbox batches': 'outbox_batches',
      'outbox meta': 'outbox_meta',
      'sanctions list': 'screening_list',
    });
  });

  it('name each collection once', () => {
    const names = Object.values(ALL);
    expect(new Set(names).size).toBe(names.length);
  });

  it('read what a store written under the old bare names holds', async () => {
    const dir = await tempDir();
    try {
      const lines = [
        { seq: 1, ops: [{ op: 'put', c: 'settings', id: 'webhookSecret', v: { value: 'kept' } }] },
        { seq: 2, ops: [{ op: 'put', c: 'outbox_meta', id: 'seq', v: { seq: 7 } }] },
      ];
      const { writeFile } = await import('node:fs/promises');
      await writeFile(`${dir}/journal.jsonl`, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
      const s = await openStore({ dir });
      try {
        expect(s.get(SETTINGS, 'webhookSecret')?.value).toBe('kept');
        expect(s.get(OUTBOX_COLLECTIONS.meta, 'seq')?.seq).toBe(7);
      } finally {
        await s.close();
      }
    } finally {
      await removeTempDirs();
    }
  });
});
