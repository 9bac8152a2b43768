/**
 * The history bench's template: a few withdrawals through the real app, in this process (the
 * decider, the rule table, the audit log, the outbox, the embedded sandbox as the wallet
 * service, a recording fake Slack): each requested, approved, sent and settled, and every
 * message it causes delivered. What the app then holds is the template the fill replicates
 * (fill.ts): a closed withdrawal's records exactly as the app writes them.
 */
import { readSource } from '../../src/migration/to-postgres.js';
import { WITHDRAWALS } from '../../src/withdrawals/index.js';
import { startTestApp, USERS } from '../../test/helpers/treasury-app.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';

/** Every record of the template's store, by collection, with its id. */
export type Template = Map<string, Array<[string, unknown]>>;

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`history template: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `count` withdrawals from request to settled, then the store's records as they are on disk. */
export async function makeTemplate(count: number): Promise<{ template: Template; ids: string[] }> {
  const t = await startTestApp();
  const { deps } = t.app;
  let ids: string[];
  try {
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000000');
    ids = [];
    for (let i = 0; i < count; i++) {
      const out = await deps.withdrawals.request(
        {
          amount: `${1 + (i % 7)}.${String(i % 100).padStart(2, '0')}`,
          currency: 'USDT',
          network: 'BSC',
          destination: DEST,
          clientEmail: CLIENT,
          note: `supplier payout ${i}`,
        },
        USERS.alice,
      );
      if (!out.ok) throw new Error(`history template: request refused (${out.rule}): ${out.message}`);
      const approved = await deps.withdrawals.approve(out.request.id, USERS.carol);
      if (!approved.ok) throw new Error(`history template: approval refused: ${JSON.stringify(approved)}`);
      ids.push(out.request.id);
    }
    await until('every withdrawal settled', () =>
      ids.every((id) => deps.store.get(WITHDRAWALS, id)?.state === 'completed'),
    );
    await deps.outbox.drain(60_000);
  } finally {
    await t.app.stop();
    await t.fake.close();
  }
  const collections = await readSource(t.dataDir);
  const template: Template = new Map();
  for (const [name, m] of collections) template.set(name, [...m]);
  return { template, ids };
}
