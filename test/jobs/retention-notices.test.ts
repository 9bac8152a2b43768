/**
 * The retention job also prunes what reminders and escalations leave behind (issue 39 left these
 * collections to grow): notices whose message was delivered, marks of requests no longer waiting,
 * reminder times past the period; and keeps each one something still reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AWAY_NOTICES, type AwayNotice } from '../../src/away/state.js';
import { Retention } from '../../src/jobs/retention.js';
import { createLogger } from '../../src/log.js';
import { COLLECTIONS as OUTBOX, type OutboxEntry } from '../../src/outbox/types.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { openStore, type Store } from '../../src/store/index.js';
import { ESCALATION_MARKS, ESCALATION_NOTICES, type EscalationNotice } from '../../src/withdrawals/escalation.js';
import { PERSON_NUDGES } from '../../src/withdrawals/nudges.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const dirs: string[] = [];
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const notice = (id: string, at: string): EscalationNotice => ({
  id,
  kind: 'dm',
  user: 'U1',
  stage: 'dm',
  requests: ['r-open'],
  at,
});
const entry = (id: string, ref: string, state: OutboxEntry['state']) =>
  ({
    id,
    ref,
    state,
    op: 'dm',
    renderer: 'escalation',
    user: 'U1',
    order: 1,
    lane: 'dm:U1',
    createdAt: 0,
    attempts: 0,
  }) as unknown as OutboxEntry;

describe('retention of reminders and escalations', () => {
  it('deletes delivered old notices, marks of settled requests and old reminder times; keeps what is still read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retention-notices-'));
    dirs.push(dir);
    store = await openStore({ dir });
    await store.commit((tx) => {
      tx.put(ESCALATION_NOTICES, 'n-old-sent', notice('n-old-sent', iso(40 * DAY)));
      tx.put(ESCALATION_NOTICES, 'n-old-parked', notice('n-old-parked', iso(40 * DAY)));
      tx.put(ESCALATION_NOTICES, 'n-new', notice('n-new', iso(DAY)));
      tx.put(OUTBOX.entries, 'e1', entry('e1', 'n-old-sent', 'done'));
      // A message that failed and waits for an admin to requeue it is still drawn from its notice.
      tx.put(OUTBOX.entries, 'e2', entry('e2', 'n-old-parked', 'failed'));
      const away: AwayNotice = { id: 'a-old', kind: 'delegate', to: 'U2', user: 'U1', by: 'U1', at: iso(31 * DAY) };
      tx.put(AWAY_NOTICES, 'a-old', away);
      tx.put(WITHDRAWALS, 'r-open', { id: 'r-open', state: 'pending' } as unknown as WithdrawalRequest);
      tx.put(WITHDRAWALS, 'r-done', { id: 'r-done', state: 'completed' } as unknown as WithdrawalRequest);
      tx.put(ESCALATION_MARKS, 'm-open', { id: 'm-open', requestId: 'r-open', told: ['U1'] });
      tx.put(ESCALATION_MARKS, 'm-done', { id: 'm-done', requestId: 'r-done', told: ['U1'] });
      tx.put(PERSON_NUDGES, 'U1', { id: 'U1', at: iso(35 * DAY) });
      tx.put(PERSON_NUDGES, 'U2', { id: 'U2', at: iso(3_600_000) });
    });
    const res = await new Retention({
      store,
      logger: createLogger({ level: 'silent' }),
      now: () => NOW,
      policy: fixedPolicy({ retention: { days: 30 } }),
    }).prune();

    expect(res).toMatchObject({ notices: 2, marks: 1, nudges: 1 });
    expect(store.all(ESCALATION_NOTICES).map((n) => n.id)).toEqual(['n-old-parked', 'n-new']);
    expect(store.all(AWAY_NOTICES)).toEqual([]);
    expect(store.all(ESCALATION_MARKS).map((m) => m.id)).toEqual(['m-open']);
    expect(store.all(PERSON_NUDGES).map((n) => n.id)).toEqual(['U2']);
    // The withdrawal requests themselves are never pruned.
    expect(store.count(WITHDRAWALS)).toBe(2);
  });
});
