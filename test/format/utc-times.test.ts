/**
 * The UTC formatters that replaced hand-written toISOString() slicing in src/slack and
 * src/alerts: for every valid time they write exactly what the old expressions wrote.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utcClock, utcMinute, utcSecond } from '../../src/format/time.js';

// Year 0..9999: the range where toISOString() writes a 4-digit year, as every app time has.
const ms = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });

describe('UTC formatters', () => {
  it('utcSecond writes what the status-change line wrote before', () => {
    fc.assert(
      fc.property(
        ms,
        (t) =>
          utcSecond(t) ===
          new Date(t)
            .toISOString()
            .replace('T', ' ')
            .replace(/\.\d+Z$/, ' UTC'),
      ),
    );
    expect(utcSecond(Date.UTC(2026, 10, 23, 1, 21, 5, 999))).toBe('2026-11-23 01:21:05 UTC');
  });

  it('utcClock writes what the unknown-window message wrote before', () => {
    fc.assert(fc.property(ms, (t) => utcClock(t) === new Date(t).toISOString().slice(11, 16)));
    expect(utcClock(Date.UTC(2026, 10, 23, 9, 5, 59))).toBe('09:05');
  });

  it('utcMinute writes what /treasury status wrote before for unknown notifications', () => {
    fc.assert(
      fc.property(
        ms,
        (t) =>
          utcMinute(t) ===
          new Date(t)
            .toISOString()
            .replace('T', ' ')
            .replace(/:\d\d\.\d+Z$/, ' UTC'),
      ),
    );
  });

  it('an invalid time reads "unknown" instead of throwing', () => {
    expect(utcSecond(Number.NaN)).toBe('unknown');
    expect(utcClock('not a date')).toBe('unknown');
  });
});
