/**
 * The local workspace's own decisions, without a server: how Slack splits a slash command,
 * answers one no app registered, shows an ack, judges a modal's submission, and which page
 * files reach the browser.
 */
import { describe, expect, it } from 'vitest';
import {
  ackNotice,
  fileHeaders,
  judgeSubmission,
  postsInChannel,
  sandboxRefusal,
  splitCommand,
  unknownCommand,
} from '../../src/local/workspace/decide.js';
import { servedType } from '../../src/local/workspace/page.js';

const registered = (names: string[]) => ({ has: (n: string) => names.includes(n), names: () => names });
const reply = (status: number, json?: Record<string, unknown>, text = '') => ({ status, json, text });

describe('the local workspace decides as Slack does', () => {
  it('splits a command line into the command and its text', () => {
    expect(splitCommand('/tx   currency=USDT  size=5 ')).toEqual({ command: '/tx', text: 'currency=USDT  size=5' });
    expect(splitCommand('/treasury')).toEqual({ command: '/treasury', text: '' });
  });

  it('answers a command no app registered with the ones there are', () => {
    const commands = registered(['/tx', '/address']);
    expect(unknownCommand('/tx', commands)).toBeUndefined();
    expect(unknownCommand('/nope', commands)).toBe(':warning: `/nope` is not a valid command. Try `/tx`, `/address`.');
    expect(unknownCommand('tx', registered(['tx']))).toContain('is not a valid command');
  });

  it("shows a slash command's ack to its sender, a failure as Slack's notice, and nothing for an empty ack", () => {
    expect(ackNotice('/tx', reply(500))).toEqual({
      content: { text: ':warning: /tx failed with the error "dispatch_failed" (HTTP 500)' },
      via: 'workspace',
    });
    expect(ackNotice('/tx', reply(200, { text: 'hi', blocks: [{ type: 'divider' }] }))).toEqual({
      content: { text: 'hi', blocks: [{ type: 'divider' }] },
      via: 'ack',
    });
    expect(ackNotice('/tx', reply(200, undefined, 'plain words'))).toEqual({
      content: { text: 'plain words' },
      via: 'ack',
    });
    expect(ackNotice('/tx', reply(200, undefined, '  '))).toBeUndefined();
    expect(ackNotice('/tx', reply(200, {}))).toBeUndefined();
    expect(postsInChannel(reply(200, { response_type: 'in_channel' }))).toBe(true);
    expect(postsInChannel(reply(500, { response_type: 'in_channel' }))).toBe(false);
  });

  it("judges a modal's submission from the app's ack", () => {
    expect(judgeSubmission(reply(502))).toEqual({
      kind: 'unanswered',
      errors: { _: 'We had some trouble connecting. Try again?' },
    });
    const errors = { response_action: 'errors', errors: { amount: 'too much' } };
    expect(judgeSubmission(reply(200, errors))).toEqual({
      kind: 'errors',
      errors: { amount: 'too much' },
      ack: errors,
    });
    expect(judgeSubmission(reply(200))).toEqual({ kind: 'accepted', ack: {} });
  });

  it("says why the sandbox refused a deposit, whatever its error's shape", () => {
    expect(sandboxRefusal(400, { message: 'no such client' })).toBe('the sandbox refused the deposit: no such client');
    expect(sandboxRefusal(400, { data: { message: 'bad amount' } })).toBe(
      'the sandbox refused the deposit: bad amount',
    );
    expect(sandboxRefusal(503, {})).toBe('the sandbox refused the deposit: HTTP 503');
  });

  it('shows PNGs inline and downloads anything else under a safe name', () => {
    expect(fileHeaders('qr.png', 10)).toMatchObject({
      'content-type': 'image/png',
      'content-disposition': 'inline; filename="qr.png"',
    });
    expect(fileHeaders('a "b".csv', 3)).toMatchObject({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="a__b_.csv"',
    });
  });

  it("serves the page's scripts and styles only, by plain names", () => {
    expect(servedType('app.js')).toBe('text/javascript; charset=utf-8');
    expect(servedType('render-blocks.js')).toBe('text/javascript; charset=utf-8');
    expect(servedType('style.css')).toBe('text/css; charset=utf-8');
    for (const name of ['types.d.ts', 'tsconfig.json', 'index.html', '../app.js', 'a/b.js', '.js', 'x.constructor']) {
      expect(servedType(name), name).toBeUndefined();
    }
  });
});
