/** The batch card within Slack's limits whatever the file holds: 1,000 rows, hundreds flagged, long outside text. */
import { describe, expect, it } from 'vitest';
import { progressOf } from '../../src/batches/decide.js';
import { batchTier, totalsOf } from '../../src/batches/judge.js';
import type { Batch } from '../../src/batches/types.js';
import { validatePayoutFile } from '../../src/batches/validate.js';
import { batchCard } from '../../src/slack/batch/card.js';
import { CLIENT, DEST, T0, testPolicy } from '../withdrawals/helpers.js';

const policy = testPolicy({ dailyLimit: { USDT: '1000000' } });

describe('the batch card’s size', () => {
  it('stays within 50 blocks, 3,000 characters a section and 2,000 a field with 1,000 rows and 400 look-alikes', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${DEST},${i + 1},USDT,BSC,${CLIENT},${'L'.repeat(60)}${i}`);
    const v = validatePayoutFile(['address,amount,currency,network,client_email,label', ...lines].join('\n'), policy);
    if (!v.ok) throw new Error(JSON.stringify(v.errors.slice(0, 3)));
    const totals = totalsOf(v.rows, undefined);
    const tier = batchTier(policy, totals);
    if ('refused' in tier) throw new Error(tier.refused);
    const at = new Date(T0).toISOString();
    const lookalikes = Array.from({ length: 400 }, (_, i) => ({
      row: i + 2,
      label: `<!channel> ${'x'.repeat(300)}`,
      address: DEST,
      extraApprovals: 1,
    }));
    const b: Batch = {
      ...{ id: 'b1', requester: 'U0ALICE', fileName: 'f'.repeat(400), sha256: 'ab'.repeat(32), state: 'pending' },
      ...{ rows: v.rows, totals, tier, stepUp: true, stepUpNeed: 'passkey', approvals: [], newDestinations: 1000 },
      ...{ unlisted: 1000, createdAt: at, expiresAt: at },
      screening: { lookalikes, sanctioned: [], provider: 'down', stale: { ageMs: 3 * 86_400_000 } },
    };
    const { blocks, text } = batchCard(b, progressOf(b, []));
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(text.length).toBeLessThanOrEqual(3000);
    const json = JSON.stringify(blocks);
    expect(json).not.toContain('<!channel>');
    for (const block of blocks as Array<{ text?: { text: string }; fields?: Array<{ text: string }> }>) {
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
      for (const f of block.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
      expect((block.fields ?? []).length).toBeLessThanOrEqual(10);
    }
    const words = json.replace(/\\n/g, '\n');
    expect(words).toContain('400 rows look like a known address (+1 approval, once)');
    expect(words).toContain('…and 390 more');
    expect(words).toContain('the screening service could not be reached');
    expect(words).toContain('a passkey confirmed for this file');
  });
});
