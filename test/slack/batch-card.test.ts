/** The batch card's words and bounds, and the throttle that keeps its edits within chat.update's limit. */
import { describe, expect, it, vi } from 'vitest';
import { progressOf } from '../../src/batches/decide.js';
import { batchTier, totalsOf } from '../../src/batches/judge.js';
import type { Batch } from '../../src/batches/types.js';
import { validatePayoutFile } from '../../src/batches/validate.js';
import { batchCard } from '../../src/slack/batch/card.js';
import { editThrottle } from '../../src/slack/batch/throttle.js';
import { CLIENT, DEST, T0, testPolicy } from '../withdrawals/helpers.js';

const policy = testPolicy({ dailyLimit: { USDT: '1000000' } });

function batch(lines: string[], fileName = 'payouts.csv'): Batch {
  const v = validatePayoutFile(['address,amount,currency,network,client_email,label', ...lines].join('\n'), policy);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const totals = totalsOf(v.rows, undefined);
  const tier = batchTier(policy, totals);
  if ('refused' in tier) throw new Error(tier.refused);
  const at = new Date(T0).toISOString();
  return {
    ...{ id: 'b1', requester: 'U0ALICE', fileName, sha256: 'ab'.repeat(32), state: 'pending' as const },
    ...{ rows: v.rows, totals, tier, stepUp: false, approvals: [], newDestinations: 2, unlisted: 1 },
    ...{ createdAt: at, expiresAt: at },
  };
}

describe('the batch card', () => {
  it('shows the status first, the totals, the five largest rows, and escapes outside text', () => {
    const amounts = ['5', '900', '12', '700', '3', '650', '40'];
    const b = batch(
      amounts.map((a, i) => `${DEST},${a},USDT,BSC,${CLIENT},<!here> payee ${i}`),
      '<@U0EVIL>.csv',
    );
    const { text, blocks } = batchCard(b, progressOf(b, []));
    const all = JSON.stringify(blocks);
    expect(text).toMatch(/^Batch payout of 7 rows \(2,310(\.00)? USDT\): ⏳ Waiting for 2 more approvals/);
    expect(all).not.toContain('<!here>');
    expect(all).not.toContain('<@U0EVIL>');
    const largest = all.slice(all.indexOf('Five largest rows'));
    expect(largest.match(/Row \d+/g)).toEqual(['Row 3', 'Row 5', 'Row 7', 'Row 8', 'Row 4']);
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(all).toContain('batch_approve');
    const sending = batchCard({ ...b, state: 'sending' }, progressOf({ ...b, state: 'sending' }, []));
    expect(JSON.stringify(sending.blocks)).toContain('batch_stop');
    expect(JSON.stringify(sending.blocks)).not.toContain('batch_approve');
  });
});

describe('the card edit throttle', () => {
  it('lets one edit through per window, one more after the last change, and never two for one window', () => {
    vi.useFakeTimers();
    try {
      const later: string[] = [];
      const th = editThrottle({ everyMs: 5_000, now: Date.now, later: (id) => later.push(id) });
      // 1,000 row changes within a second: one edit now, one trailing edit 5 s after it.
      const passed = Array.from({ length: 1_000 }, () => th.offer('b1')).filter(Boolean).length;
      expect(passed).toBe(1);
      vi.advanceTimersByTime(4_999);
      expect(later).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(later).toEqual(['b1']);
      // The trailing edit started a window of its own.
      expect(th.offer('b1')).toBe(false);
      vi.advanceTimersByTime(5_000);
      expect(later).toEqual(['b1', 'b1']);
      // A minute of steady progress: one edit every 5 s (at 0 s, 5 s, …, 60 s), within chat.update's ~50 a minute.
      let edits = 0;
      const counted = editThrottle({ everyMs: 5_000, now: Date.now, later: () => void edits++ });
      for (let ms = 0; ms < 60_000; ms += 100) {
        if (counted.offer('b2')) edits++;
        vi.advanceTimersByTime(100);
      }
      expect(edits).toBe(13);
      th.close();
      counted.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
