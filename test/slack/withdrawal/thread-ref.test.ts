/** The refs a withdrawal's thread lines and DMs travel in through the outbox: typed, and readable across versions. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pure } from '../../fuzz/config.js';
import {
  decodeApproverDmRef,
  decodeDmRef,
  decodeThreadLine,
  encodeApproverDmRef,
  encodeDmRef,
  encodeThreadLine,
  type ThreadLine,
} from '../../../src/slack/withdrawal/thread-ref.js';

const id = fc.uuid();
const slackId = fc.oneof(
  fc.stringMatching(/^[UW][A-Z0-9]{2,10}$/),
  fc.stringMatching(/^S[A-Z0-9]{2,10}$/),
  fc.constant('*'),
);
const mentions = fc.array(slackId, { maxLength: 4 });
/** Any status text: spaces, `|`, `%`, `-`, look-alike mentions, unicode. */
const status = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '',
    '-',
    '%2D',
    'CONFIRMED',
    'NOT_PROPAGATED',
    'a|b',
    '<@U999> <!here>',
    'x <!subteam^S1>',
    '%E0%A4%A',
  ),
);

const line: fc.Arbitrary<ThreadLine> = fc.oneof(
  fc.record({ kind: fc.constant('approved' as const), id, user: fc.stringMatching(/^[UW][A-Z0-9]{2,10}$/) }),
  fc.record({ kind: fc.constantFrom('reminder', 'policy', 'held', 'notice-disagreed'), id, mentions }),
  fc.record({ kind: fc.constant('released' as const), id }),
  fc.record({
    kind: fc.constantFrom('confirmation', 'contradiction', 'double-payment', 'double-payment-original'),
    id,
    status,
    mentions,
  }),
);

describe('thread line refs', () => {
  it('any line round-trips, whatever its status text, and calls only the mentions it was given', () => {
    fc.assert(
      fc.property(line, (l) => {
        const back = decodeThreadLine(encodeThreadLine(l));
        expect(back).toEqual(l);
        if ('mentions' in back && 'mentions' in l) for (const m of back.mentions) expect(l.mentions).toContain(m);
      }),
      pure(),
    );
  });

  it('a status holding mentions, spaces or `|` never becomes a mention', () => {
    fc.assert(
      fc.property(id, status, (i, s) => {
        const back = decodeThreadLine(encodeThreadLine({ kind: 'contradiction', id: i, status: s, mentions: [] }));
        expect(back).toMatchObject({ kind: 'contradiction', id: i, status: s, mentions: [] });
      }),
      pure(),
    );
  });

  it('encodes as the outbox has stored them: `id|kind|detail`', () => {
    expect(encodeThreadLine({ kind: 'approved', id: 'r1', user: 'U1' })).toBe('r1|approved|U1');
    expect(encodeThreadLine({ kind: 'reminder', id: 'r1', mentions: ['U1', 'S2', '*'] })).toBe(
      'r1|reminder|<@U1> <!subteam^S2> <!here>',
    );
    expect(encodeThreadLine({ kind: 'held', id: 'r1', mentions: [] })).toBe('r1|held|');
    expect(encodeThreadLine({ kind: 'released', id: 'r1' })).toBe('r1|released');
    expect(encodeThreadLine({ kind: 'confirmation', id: 'r1', status: 'NOT PROPAGATED', mentions: ['U1'] })).toBe(
      'r1|confirmation|NOT%20PROPAGATED <@U1>',
    );
    expect(encodeThreadLine({ kind: 'double-payment', id: 'r1', status: '', mentions: ['U1'] })).toBe(
      'r1|double-payment|- <@U1>',
    );
  });

  it('reads refs queued by earlier versions: a raw status, an empty one as "-", mentions in any form but ours dropped', () => {
    expect(decodeThreadLine('r1|confirmation|FAILED <@U1> <@U2>')).toEqual({
      kind: 'confirmation',
      id: 'r1',
      status: 'FAILED',
      mentions: ['U1', 'U2'],
    });
    expect(decodeThreadLine('r1|double-payment-original|-')).toEqual({
      kind: 'double-payment-original',
      id: 'r1',
      status: '',
      mentions: [],
    });
    expect(decodeThreadLine('r1|contradiction|100%_done <@U1> @everyone <!channel>')).toEqual({
      kind: 'contradiction',
      id: 'r1',
      status: '100%_done',
      mentions: ['U1'],
    });
    expect(decodeThreadLine('r1|held|<!subteam^S9> <!here>')).toEqual({
      kind: 'held',
      id: 'r1',
      mentions: ['S9', '*'],
    });
    expect(decodeThreadLine('r1|something-new|x')).toEqual({
      kind: 'other',
      id: 'r1',
      name: 'something-new',
      detail: 'x',
    });
  });
});

describe('DM refs', () => {
  it('the requester’s and the approver’s round-trip in the stored form', () => {
    expect(encodeDmRef({ id: 'r1', event: 'completed' })).toBe('r1|completed');
    expect(decodeDmRef('r1|completed')).toEqual({ id: 'r1', event: 'completed' });
    expect(encodeApproverDmRef({ id: 'r1', approver: 'U2' })).toBe('r1|U2');
    expect(decodeApproverDmRef('r1|U2')).toEqual({ id: 'r1', approver: 'U2' });
  });
});
