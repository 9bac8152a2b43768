/** The policy-change message never hides a difference silently, however long the change; nor the unusable-file notice a problem. */
import { describe, expect, it } from 'vitest';
import { renderProblem, renderProposal } from '../../commands/treasury/policy-change.js';
import type { PolicyProposal } from '../../src/policy/governance/types.js';

const proposal = (lines: string[]): PolicyProposal => ({
  id: 'p1',
  text: '',
  hash: 'h',
  baseHash: 'b',
  proposedAt: '2030-03-01T09:00:00.000Z',
  lines,
  state: 'pending',
  approvals: [],
});

const shownText = (blocks: unknown[]) =>
  (blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((b) => b.type === 'section')
    .map((b) => b.text!.text)
    .join('\n');

describe('policy change message', () => {
  it('shows every line of a short change', () => {
    const lines = ['allowlist: + 0x1 on BSC, Desk', 'tier 2 (up to 10,000): approvals 2 → 1'];
    const { blocks } = renderProposal(proposal(lines), 2);
    for (const l of lines) expect(shownText(blocks)).toContain(l);
    expect(blocks.length).toBeLessThanOrEqual(50);
  });

  it('counts the lines that do not fit instead of dropping them, within 50 blocks', () => {
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `allowlist: + 0x${String(i).padStart(40, '0')} on BSC, Supplier ${i}`,
    );
    const { blocks } = renderProposal(proposal(lines), 2);
    expect(blocks.length).toBeLessThanOrEqual(50);
    const text = shownText(blocks);
    const shown = lines.filter((l) => text.includes(l)).length;
    expect(shown).toBeGreaterThan(0);
    expect(text).toContain(`…and ${3000 - shown} more differences not shown here.`);
  });
});

describe('unusable-file notice', () => {
  it('shows every problem on its own line, whole, with the key meant; a key from the file cannot format or mention', () => {
    const problems = [
      'withdrawals.tiers.default[1].approvals: Invalid input: expected number, received undefined',
      'withdrawals.tiers.default[1].aprovals is not a policy key; did you mean approvals?',
      'withdrawals.daily_limt is not a policy key; did you mean daily_limit?',
      '["<!channel> *x*"] is not a policy key; the keys here are channels, people',
    ];
    const error = `The policy file is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
    const { text, blocks } = renderProblem(error, '2030-03-01T09:00:00.000Z');
    const shown = shownText(blocks).split('\n');
    expect(shown).toEqual(
      expect.arrayContaining(['The policy file is invalid:', ...problems.slice(0, 3).map((p) => `• ${p}`)]),
    );
    expect(text).toContain(`• ${problems[2]}`);
    expect(shownText(blocks)).not.toContain('<!channel>');
    expect(shownText(blocks)).toContain('&lt;!channel&gt; ＊x＊');
  });
});
