/** The webhook secret check against a set (issue 20, point 5): the current secret and, during an overlap, the previous one. */
import { describe, expect, it } from 'vitest';
import { matchingSecret, secretMatches } from '../../src/alerts/signature.js';

describe('matchingSecret', () => {
  it('finds which accepted secret was given, and nothing else', () => {
    expect(matchingSecret('new-secret-value-0001', ['new-secret-value-0001', 'old-secret-value-0002'])).toBe(
      'new-secret-value-0001',
    );
    expect(matchingSecret('old-secret-value-0002', ['new-secret-value-0001', 'old-secret-value-0002'])).toBe(
      'old-secret-value-0002',
    );
    expect(matchingSecret('old-secret-value-0002', ['new-secret-value-0001'])).toBeUndefined();
    expect(matchingSecret('', [])).toBeUndefined();
    expect(matchingSecret('old-secret-value-000', ['old-secret-value-0002'])).toBeUndefined();
    expect(secretMatches('one-secret-value', 'one-secret-value')).toBe(true);
    expect(secretMatches('one-secret-valuE', 'one-secret-value')).toBe(false);
  });
});
