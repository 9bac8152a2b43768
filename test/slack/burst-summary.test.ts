/** The words of a burst summary (src/slack/burst-summary.ts), from what the outbox counted. */
import { describe, expect, it } from 'vitest';
import { renderBurstSummary } from '../../src/slack/burst-summary.js';

const T0 = Date.parse('2026-11-26T10:00:00Z');

describe('burst summary words', () => {
  it('counts each label, says over how long, and calls the channel only when a post asked to', () => {
    expect(
      renderBurstSummary({ labels: { deposit: 1 }, mention: false, firstAt: T0, count: 1 }, { op: 'post', now: T0 }),
    ).toEqual({
      text: '1 deposit in the last minute. Details in the thread.',
    });
    expect(
      renderBurstSummary(
        { labels: { deposit: 12, withdrawal: 1 }, mention: true, firstAt: T0, count: 13 },
        { op: 'post', now: T0 + 2 * 60_000 + 1 },
      ),
    ).toEqual({ text: '<!here> 12 deposits, 1 withdrawal in the last 3 minutes. Details in the thread.' });
  });
});
