/**
 * The away rules as pure functions (src/away): who may set whose state, the one-level rule in every
 * shape (a cycle, a chain either way, a delegate away), the dates people type, and whom to ask instead.
 */
import { describe, expect, it } from 'vitest';
import { decideAway, decideBack } from '../../src/away/decide.js';
import { delegation, oneVoteWith, routeAsks } from '../../src/away/delegation.js';
import type { AwayRecord } from '../../src/away/state.js';
import { parseUntil } from '../../src/away/until.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const DAY = 86_400_000;
const rec = (id: string, delegate?: string, days = 3): AwayRecord => ({
  id,
  until: new Date(T0 + days * DAY).toISOString(),
  ...(delegate ? { delegate } : {}),
  setBy: id,
  at: new Date(T0).toISOString(),
});
const facts = (records: AwayRecord[], o: { admin?: boolean; approver?: boolean; delegateApprover?: boolean } = {}) => ({
  now: T0,
  records,
  actorIsAdmin: o.admin ?? false,
  targetIsApprover: o.approver ?? true,
  delegateIsApprover: o.delegateApprover ?? true,
  name: (u: string) => `@${u}`,
});
const away = (actor: string, target: string, delegate?: string, until = T0 + DAY) => ({
  actor,
  target,
  until,
  delegate,
});

describe('decideAway', () => {
  it('sets one’s own state, with or without a delegate', () => {
    expect(decideAway(away('A', 'A', 'B'), facts([]))).toMatchObject({ ok: true, record: { id: 'A', delegate: 'B' } });
    expect(decideAway(away('A', 'A'), facts([]))).toMatchObject({ ok: true, record: { id: 'A' } });
  });
  it('refuses a cycle, a chain either way, a delegate who is away, oneself as delegate', () => {
    const msg = (r: ReturnType<typeof decideAway>) => (r.ok ? 'ok' : r.message);
    expect(msg(decideAway(away('A', 'A', 'B'), facts([rec('B', 'A')])))).toContain('cannot stand in for each other');
    expect(msg(decideAway(away('A', 'A', 'B'), facts([rec('B', 'C')])))).toContain('one level only');
    expect(msg(decideAway(away('A', 'A', 'B'), facts([rec('C', 'A')])))).toContain('one level only');
    expect(msg(decideAway(away('A', 'A', 'B'), facts([rec('B')])))).toContain('is away until');
    expect(msg(decideAway(away('A', 'A', 'A'), facts([])))).toContain('someone else');
    // A record past its end is no longer in force: no chain then.
    expect(decideAway(away('A', 'A', 'B'), facts([rec('B', 'C', -1)])).ok).toBe(true);
    // Replacing one's own record is not a chain with oneself.
    expect(decideAway(away('A', 'A', 'B'), facts([rec('A', 'C')])).ok).toBe(true);
  });
  it('only an admin sets someone else’s; no past, no more than 90 days; no approvals to hand on for a non-approver', () => {
    expect(decideAway(away('X', 'A'), facts([])).ok).toBe(false);
    expect(decideAway(away('X', 'A'), facts([], { admin: true })).ok).toBe(true);
    // An admin never hands someone's approvals to themselves.
    expect(decideAway(away('X', 'A', 'X'), facts([], { admin: true })).ok).toBe(false);
    expect(decideAway(away('X', 'A', 'B'), facts([], { admin: true })).ok).toBe(true);
    expect(decideAway(away('A', 'A', undefined, T0 - 1), facts([])).ok).toBe(false);
    expect(decideAway(away('A', 'A', undefined, T0 + 91 * DAY), facts([])).ok).toBe(false);
    expect(decideAway(away('A', 'A', 'B'), facts([], { approver: false })).ok).toBe(false);
  });
  it('refuses a delegate who is not an approver, set by the person or by an admin, in words that say why', () => {
    const own = decideAway(away('A', 'A', 'B'), facts([], { delegateApprover: false }));
    expect(own).toMatchObject({ ok: false, message: expect.stringContaining('@B is not an approver') });
    expect(decideAway(away('X', 'A', 'B'), facts([], { admin: true, delegateApprover: false })).ok).toBe(false);
    // Away without a delegate needs nobody's role.
    expect(decideAway(away('A', 'A'), facts([], { delegateApprover: false })).ok).toBe(true);
  });
  it('back: only when away; someone else’s only by an admin', () => {
    expect(decideBack({ actor: 'A', target: 'A' }, facts([])).ok).toBe(false);
    expect(decideBack({ actor: 'A', target: 'A' }, facts([rec('A')])).ok).toBe(true);
    expect(decideBack({ actor: 'X', target: 'A' }, facts([rec('A')])).ok).toBe(false);
    expect(decideBack({ actor: 'X', target: 'A' }, facts([rec('A')], { admin: true })).ok).toBe(true);
  });
});

describe('who is asked, and one vote', () => {
  const d = delegation([rec('D', 'C'), rec('E')], T0);
  it('asks the delegate instead of the person away; nobody for someone away without one', () => {
    expect(routeAsks(['C', 'D', 'E'], d, 'A').sort()).toEqual(['C']);
    expect(routeAsks(['D', 'E', 'F'], d, 'A').sort()).toEqual(['C', 'F']);
  });
  it('never asks about a request the delegate or the delegator made, nor whose vote is in', () => {
    expect(routeAsks(['D', 'F'], d, 'C')).toEqual(['F']);
    expect(routeAsks(['C', 'D', 'F'], d, 'D')).toEqual(['F']);
    expect(routeAsks(['D', 'F'], d, 'A', new Set(['D']))).toEqual(['F']);
  });
  it('a person, whom they stand in for and their own delegate are one vote', () => {
    expect(oneVoteWith(d, 'C').sort()).toEqual(['C', 'D']);
    expect(oneVoteWith(d, 'D').sort()).toEqual(['C', 'D']);
    expect(oneVoteWith(d, 'F')).toEqual(['F']);
  });
});

describe('parseUntil', () => {
  it('reads dates, UTC times and spans, and refuses what is not a date', () => {
    expect(parseUntil('2030-01-05', T0)).toEqual({ ok: true, at: Date.parse('2030-01-05T00:00:00Z') });
    expect(parseUntil('2030-01-05 14:30 UTC', T0)).toEqual({ ok: true, at: Date.parse('2030-01-05T14:30:00Z') });
    expect(parseUntil('3d', T0)).toEqual({ ok: true, at: T0 + 3 * DAY });
    expect(parseUntil('36h', T0)).toEqual({ ok: true, at: T0 + 36 * 3_600_000 });
    for (const bad of ['2030-02-30', 'tomorrow', '2030-01-05 25:00', ''])
      expect(parseUntil(bad, T0).ok, bad).toBe(false);
  });
});
