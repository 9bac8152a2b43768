/**
 * Notifications judged against the wallet service's answer (src/withdrawals/notice.ts), the
 * decider alone: which claims agree, every claim of a burst judged, the status shown never moving
 * backwards, an answer about another payment settling nothing (service-mismatch.ts).
 */
import { describe, expect, it } from 'vitest';
import { noticeText } from '../../src/slack/withdrawal/index.js';
import { MISMATCH_RENDERER, renderServiceMismatch } from '../../src/slack/withdrawal-mismatch.js';
import { withdrawalMessages } from '../../src/slack/withdrawal-notify.js';
import { decide, type Decision, type WithdrawalCommand } from '../../src/withdrawals/decide/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { ctx, policy, unknownRequest, word } from './notice-helpers.js';

function changed(d: Decision<string>) {
  if (d.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(d)}`);
  return d;
}

/** The request after these notifications, each recorded. */
function claimed(req: WithdrawalRequest, ...statuses: Array<string | number | [string, string]>): WithdrawalRequest {
  for (const s of statuses) {
    const [status, transactionHash] = Array.isArray(s) ? s : [s, undefined];
    const c: WithdrawalCommand = { type: 'notice', status, ...(transactionHash ? { transactionHash } : {}) };
    req = changed(decide(c, req, ctx())).next;
  }
  return req;
}

const verdict = (req: WithdrawalRequest, status: Parameters<typeof word>[0]) =>
  decide({ type: 'notice-verdict', word: word(status) }, req, ctx());

describe('a claim against a final answer agrees only if it matches, or says nothing final yet', () => {
  it.each([
    ['Failed - not sent, please request again'],
    ['CANCELLED'],
    ['ERROR'],
    ['FAILED'],
    ['NOT_PROPAGATED'],
    [''],
  ])('%j against Completed: a contradiction, the admins told', (claim) => {
    const d = changed(verdict(claimed(unknownRequest(), claim), 'completed'));
    expect(d).toMatchObject({
      event: 'notice-disagreed',
      audit: { action: 'notice_contradiction', details: { status: claim, service: 'Completed' } },
      next: { notice: { waiting: false, disagreed: { status: claim, service: 'Completed' } } },
    });
  });

  it.each([['CONFIRMED'], ['Completed?'], ['CANCELLED']])('%j against Failed: a contradiction', (claim) => {
    expect(changed(verdict(claimed(unknownRequest(), claim), 'failed'))).toMatchObject({
      event: 'notice-disagreed',
      audit: { action: 'notice_contradiction' },
    });
  });

  it.each([
    ['CONFIRMED', 'completed'],
    ['PENDING', 'completed'],
    ['ABOUT_TO_INITIATE', 'completed'],
    ['FAILED', 'failed'],
    ['NOT_PROPAGATED', 'failed'],
    ['PENDING', 'failed'],
  ] as const)('%j against %s agrees', (claim, service) => {
    expect(changed(verdict(claimed(unknownRequest(), claim), service))).toMatchObject({
      event: 'notice',
      audit: { action: 'webhook_checked' },
      next: { notice: { waiting: false } },
    });
  });

  it('while a claim waits, the card shows an unrecognised text as "an unrecognised status", never its words', () => {
    const junk = claimed(unknownRequest(), 'Failed - not sent, please request again');
    expect(noticeText(junk)).toBe(
      ':hourglass_flowing_sand: A notification says an unrecognised status; waiting for the wallet service to confirm.',
    );
    expect(noticeText(claimed(unknownRequest(), 'FAILED'))).toContain('A notification says FAILED;');
    expect(noticeText(claimed(unknownRequest(), 4))).toContain('A notification says FAILED;');
  });
});

describe('every claim of a burst is judged', () => {
  // Moved from decide.test.ts, where it kept only the last few earlier claims (`earlier`).
  it('a claim replaced before the service answered is still judged', () => {
    const genuine = claimed(unknownRequest(), 'FAILED', 'CONFIRMED');
    expect(genuine.notice).toMatchObject({
      status: 'CONFIRMED',
      claims: [
        { status: 'FAILED', count: 1 },
        { status: 'CONFIRMED', count: 1 },
      ],
    });
    expect(changed(verdict(genuine, 'completed'))).toMatchObject({
      event: 'notice-disagreed',
      next: { notice: { status: 'CONFIRMED', disagreed: { status: 'FAILED' } } },
    });
  });

  it('FAILED followed by five distinct other claims: the FAILED is still judged, with its count', () => {
    const burst = claimed(
      unknownRequest(),
      ['FAILED', '0x1'],
      ['FAILED', '0x2'],
      'junk-1',
      'junk-2',
      'junk-3',
      'junk-4',
      'CONFIRMED',
    );
    expect(burst.notice?.claims).toEqual([
      { status: 'FAILED', count: 2 },
      { status: 'junk-1', count: 1 },
      { status: 'junk-2', count: 1 },
      { status: 'junk-3', count: 1 },
      { status: 'junk-4', count: 1 },
      { status: 'CONFIRMED', count: 1 },
    ]);
    const d = changed(verdict(burst, 'completed'));
    expect(d).toMatchObject({
      event: 'notice-disagreed',
      audit: { details: { status: 'FAILED', claims: expect.arrayContaining([{ status: 'FAILED', count: 2 }]) } },
      next: { notice: { status: 'CONFIRMED', disagreed: { status: 'FAILED' } } },
    });
    // Judged: the next claim starts a new list.
    expect(d.next.notice).not.toHaveProperty('claims');
  });

  it('memory stays bounded: unrecognised texts beyond a few are only counted, and the overflow is judged too', () => {
    const texts = Array.from({ length: 40 }, (_, i) => `junk-${i}`);
    const burst = claimed(unknownRequest(), 'FAILED', ...texts, 'CONFIRMED', 'PENDING');
    const claims = burst.notice!.claims!;
    expect(claims.length).toBeLessThanOrEqual(10);
    // The recognised statuses always keep their entry, however many texts came before them.
    expect(claims.map((c) => c.status)).toEqual(expect.arrayContaining(['FAILED', 'CONFIRMED', 'PENDING']));
    expect(burst.notice!.overflow).toBe(40 - (claims.length - 3));
    const d = changed(verdict(burst, 'completed'));
    expect(d).toMatchObject({
      event: 'notice-disagreed',
      audit: { details: { status: 'FAILED', overflow: burst.notice!.overflow } },
    });
  });

  it('the overflow alone disagrees with a final answer', () => {
    // A request stored before `claims` (only `earlier`) is judged the same way; here only the overflow is left.
    const req = claimed(unknownRequest(), 'CONFIRMED');
    const overflowing: WithdrawalRequest = { ...req, notice: { ...req.notice!, overflow: 3 } };
    expect(changed(verdict(overflowing, 'completed'))).toMatchObject({
      event: 'notice-disagreed',
      audit: { details: { overflow: 3, status: expect.stringContaining('3 more notifications') } },
    });
    const legacy: WithdrawalRequest = {
      ...req,
      notice: { status: 'CONFIRMED', transactionHash: null, at: req.notice!.at, waiting: true, earlier: ['FAILED'] },
    };
    expect(changed(verdict(legacy, 'completed'))).toMatchObject({
      next: { notice: { disagreed: { status: 'FAILED' } } },
    });
  });
});

describe('the status shown never moves backwards', () => {
  it('a final service answer is never replaced by a non-final one (a stale Pending, an unreadable listed record)', () => {
    const confirmed = changed(decide({ type: 'service-word', word: word('completed') }, unknownRequest(), ctx())).next;
    expect(confirmed.confirmation?.status).toBe('CONFIRMED');
    expect(decide({ type: 'service-word', word: word('pending') }, confirmed, ctx()).kind).toBe('unchanged');
    const listedPending = word('pending', { via: 'list', transactionHash: null });
    expect(decide({ type: 'service-word', word: listedPending }, confirmed, ctx()).kind).toBe('unchanged');
    // Pending to a final one still moves forwards.
    const pending = changed(decide({ type: 'service-word', word: word('pending') }, unknownRequest(), ctx())).next;
    expect(
      changed(decide({ type: 'service-word', word: word('failed') }, pending, ctx())).next.confirmation,
    ).toMatchObject({ status: 'FAILED' });
  });
});

describe('an answer about another payment settles nothing', () => {
  it('audited, the admins told once; the same answer again changes nothing; another difference is audited again', () => {
    const req = claimed(unknownRequest(), 'FAILED');
    const mismatched = word('completed', { mismatches: ['amount 999 instead of 10'] });
    const d = changed(decide({ type: 'service-word', word: mismatched }, req, ctx()));
    expect(d).toMatchObject({
      event: 'service-mismatch',
      audit: {
        action: 'service_mismatch',
        details: { mismatches: ['amount 999 instead of 10'], service: 'Completed' },
      },
      next: { state: 'unknown', notice: { waiting: true }, serviceMismatch: { service: 'Completed' } },
    });
    expect(d.next.confirmation).toBeUndefined();
    expect(decide({ type: 'service-word', word: mismatched }, d.next, ctx()).kind).toBe('unchanged');
    const other = word('completed', { mismatches: ['destination 0x9 instead of 0x2'] });
    expect(changed(decide({ type: 'service-word', word: other }, d.next, ctx()))).toMatchObject({
      event: 'notice',
      audit: { action: 'service_mismatch', details: { toldBefore: d.next.serviceMismatch!.at } },
    });
  });

  it("the admins are told in the card's thread, the service's words escaped", () => {
    const evil = 'destination <!channel> <https://evil.example|x> instead of 0x2';
    const d = changed(
      decide({ type: 'service-word', word: word('completed', { mismatches: [evil] }) }, unknownRequest(), ctx()),
    );
    const out = withdrawalMessages({ type: 'service-mismatch', request: d.next }, policy, {
      reminderTargets: () => [],
    });
    const reply = out.find((m) => m.renderer === MISMATCH_RENDERER)!;
    expect(reply).toMatchObject({ op: 'reply', ref: `${d.next.id}|<@U0ERIN>` });
    const line = renderServiceMismatch(reply.ref, () => d.next)!.text;
    expect(line).toContain('does not match this request');
    expect(line).toContain('&lt;!channel&gt;');
    expect(line).not.toContain('<!channel>');
    expect(line).not.toContain('<https://evil.example');
    expect(line.endsWith('<@U0ERIN>')).toBe(true);
  });
});
