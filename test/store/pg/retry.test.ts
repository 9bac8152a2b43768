/**
 * Which failures to reach the database are tried again, and how long a replica waits between
 * tries (src/store/pg/retry.ts): pure, no database.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, isTransient, RETRY_CAP_MS } from '../../../src/store/pg/retry.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('backoff between tries to reach the database', () => {
  it('grows from 50–100 ms, never waits longer than the cap, and is jittered', () => {
    expect(backoffDelay(0, () => 0)).toBe(50);
    expect(backoffDelay(0, () => 1)).toBe(100);
    expect(backoffDelay(3, () => 0)).toBe(400);
    for (let attempt = 0; attempt < 60; attempt++) {
      expect(backoffDelay(attempt, () => 1)).toBeLessThanOrEqual(RETRY_CAP_MS);
      expect(backoffDelay(attempt, () => 0)).toBeGreaterThanOrEqual(Math.min(50, RETRY_CAP_MS / 2));
    }
    expect(backoffDelay(1_000, () => 1)).toBe(RETRY_CAP_MS);
    expect(backoffDelay(1_000, () => 0)).toBe(RETRY_CAP_MS / 2);
    // replicas that lost the database together do not all knock at once
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(10)));
    expect(spread.size).toBeGreaterThan(10);
  });
});

describe('which failures are tried again', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED /tmp/x/.s.PGSQL.5432'],
    ['ENOENT', 'connect ENOENT /tmp/x/.s.PGSQL.5432'],
    ['ECONNRESET', 'read ECONNRESET'],
    ['EPIPE', 'write EPIPE'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'sorry, too many clients already'],
    ['08006', 'connection failure'],
    ['57P05', 'terminating connection due to idle-session timeout'],
    ['25P03', 'terminating connection due to idle-in-transaction timeout'],
  ])('%s is tried again', (code, message) => {
    expect(isTransient(withCode(code, message))).toBe(true);
  });

  it.each([
    ['28P01', 'password authentication failed for user "treasury"'],
    ['3D000', 'database "treasury" does not exist'],
    ['42P01', 'relation "replica_leader" does not exist'],
  ])('%s stops the start with its message', (code, message) => {
    expect(isTransient(withCode(code, message))).toBe(false);
  });

  it('reads pg’s code-less messages and aggregated connect errors', () => {
    expect(isTransient(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransient(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isTransient(Object.assign(new Error(''), { errors: [withCode('ECONNREFUSED')] }))).toBe(true);
    expect(isTransient(new Error('this database was migrated by a newer version'))).toBe(false);
    expect(isTransient('ECONNREFUSED')).toBe(false);
  });
});
