/**
 * docs/architecture.md quotes the two paths' lengths as scripts/hops.ts computes them from the
 * import graph, never a hand count: a change that lengthens or shortens either path fails here
 * until `npm run hops -- --write` updates the docs.
 */
import { describe, expect, it } from 'vitest';
import { documentedHops, measureHops, renderHops } from '../../scripts/hops.js';

describe('the paths docs/architecture.md walks', () => {
  const paths = measureHops();

  it('are joined by imports: the Approve click reaches the wallet HTTP client, the receiver the Slack post', () => {
    for (const p of paths) {
      expect(p.files[0], p.name).toBe(p.from);
      expect(p.files.at(-1), p.name).toBe(p.to);
      expect(p.hops, p.name).toBe(p.files.length);
      expect(p.hops, p.name).toBeGreaterThan(1);
    }
  });

  it('are quoted in docs/architecture.md as computed (npm run hops -- --write updates them)', () => {
    expect(documentedHops()).toBe(renderHops(paths));
  });
});
