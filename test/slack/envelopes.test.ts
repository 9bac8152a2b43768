/**
 * Malformed Slack requests through the real receiver, signed as Slack signs them: each gets
 * an answer (4xx for what no person could have sent, never a 5xx), the process stays up,
 * nothing rejects unhandled, and every reply fits Slack's limits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FORM, sendToBolt, slashCommand } from '../helpers/slack-requests.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { limitViolations } from './limits-check.js';

let t: TestApp;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  process.off('unhandledRejection', onUnhandled);
});
afterEach(() => {
  expect(unhandled).toEqual([]);
  expect(limitViolations(t.fake.calls(), t.fake.responses)).toEqual([]);
});

const interactive = (payload: unknown) => `payload=${encodeURIComponent(JSON.stringify(payload))}`;
const send = (raw: string, contentType = FORM) => sendToBolt(t.app.url, t.signingSecret, raw, { contentType });

async function alive(): Promise<void> {
  const res = await fetch(`${t.app.url}/healthz`);
  expect(res.status).toBe(200);
}

const user = { id: USERS.viewer, username: 'v', team_id: 'T0TEAM' };
const view = (state: unknown) => ({
  id: 'V0001',
  callback_id: 'wd_request_modal',
  private_metadata: '',
  state,
  hash: 'h',
});

describe('every signed Slack request gets an answer, never a 5xx', () => {
  const cases: Array<[string, string]> = [
    ['payload=null', 'payload=null'],
    ['payload is a number', 'payload=42'],
    ['payload is a list', interactive([1, 2])],
    ['payload is not JSON', 'payload=%7Bnope'],
    [
      'block_actions without user',
      interactive({ type: 'block_actions', actions: [{ action_id: 'tx_next', type: 'button', value: '{}' }] }),
    ],
    [
      'block_actions whose actions is not a list',
      interactive({ type: 'block_actions', user, actions: { action_id: 'tx_next' } }),
    ],
    ['block_actions with no actions', interactive({ type: 'block_actions', user, actions: [] })],
    [
      'view_submission without state',
      interactive({ type: 'view_submission', user, view: { id: 'V1', callback_id: 'wd_request_modal' } }),
    ],
    [
      'view_submission whose values are null',
      interactive({ type: 'view_submission', user, view: view({ values: null }) }),
    ],
    [
      'view_submission with a number for text',
      interactive({
        type: 'view_submission',
        user,
        view: view({ values: { wd_amount: { value: { type: 'plain_text_input', value: 12 } } } }),
      }),
    ],
    [
      'view_submission with an object for text',
      interactive({
        type: 'view_submission',
        user,
        view: view({ values: { wd_amount: { value: { type: 'plain_text_input', value: { a: 1 } } } } }),
      }),
    ],
    ['view_closed without view', interactive({ type: 'view_closed', user })],
    ['shortcut with a null user', interactive({ type: 'shortcut', callback_id: 'x', user: null, trigger_id: 't' })],
    ['an unknown type', interactive({ type: 'definitely_not_slack', user })],
    ['__proto__ as the type', interactive({ type: '__proto__', user })],
    [
      'a slash command without user_id',
      'command=%2Ftx&text=&channel_id=C1&team_id=T1&response_url=http%3A%2F%2F127.0.0.1%3A1%2Fr&trigger_id=t',
    ],
    ['JSON null event body', 'null'],
    ['JSON event without event', JSON.stringify({ type: 'event_callback', team_id: 'T1' })],
  ];
  for (const [name, raw] of cases) {
    it(`${name}: 400, and the app stays up`, async () => {
      const res = await send(raw, raw.startsWith('payload=') || raw.startsWith('command=') ? FORM : 'application/json');
      expect(res.status).toBe(400);
      await alive();
    });
  }

  it('an unknown action id is acknowledged at once (200), not after a 3 s timeout', async () => {
    const res = await send(
      interactive({
        type: 'block_actions',
        user,
        actions: [{ action_id: 'no_such_action', type: 'button', value: 'x' }],
        response_url: t.fake.responseUrl(),
      }),
    );
    expect(res.status).toBe(200);
  });

  it('a well-formed view submission with an unknown callback id gets a 200', async () => {
    const res = await send(
      interactive({ type: 'view_submission', user, view: { ...view({ values: {} }), callback_id: 'nope' } }),
    );
    expect(res.status).toBe(200);
  });

  it('a request with a bad signature is still 401 (the guard does not weaken verification)', async () => {
    const res = await sendToBolt(t.app.url, t.signingSecret, 'payload=null', { signature: `v0=${'0'.repeat(64)}` });
    expect(res.status).toBe(401);
    await alive();
  });
});

describe('no inherited lookups', () => {
  for (const word of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    it(`/treasury ${word}: an unknown-subcommand answer, not an internal error`, async () => {
      const { res, responseUrl } = await t.command('/treasury', word, USERS.viewer);
      expect(res.status).toBe(200);
      const text = visibleText((await t.replies(responseUrl))[0]!);
      expect(text).toContain('Unknown subcommand');
      expect(text).not.toContain('internal error');
    });
  }
  for (const text of [
    '__proto__=1',
    'constructor=x',
    'toString=1 hasOwnProperty=2',
    'currency=__proto__',
    'network=constructor',
  ]) {
    it(`/tx ${text}: says what was wrong`, async () => {
      const { responseUrl } = await t.command('/tx', text, USERS.viewer);
      const reply = visibleText((await t.replies(responseUrl, 1, 10_000))[0]!);
      expect(reply).toMatch(/unknown (filter|currency|network)/);
      expect(reply).not.toContain('internal error');
    });
  }
});

describe('replies fit Slack', () => {
  it('a 300,000-character /tx is refused briefly, saying why', async () => {
    const long = Array.from({ length: 30_000 }, (_, i) => `junk${i}`)
      .join(' ')
      .slice(0, 300_000);
    const { res, responseUrl } = await t.command('/tx', long, USERS.viewer);
    expect(res.status).toBe(200);
    const text = visibleText((await t.replies(responseUrl))[0]!);
    expect(text.length).toBeLessThan(1_000);
    expect(text).toMatch(/characters/);
  });

  it('a 100,000-character one-line /withdraw is refused briefly, and requests nothing', async () => {
    const { responseUrl } = await t.command(
      '/withdraw',
      `10 USDT BSC 0x${'2'.repeat(40)} a@b.example ${'note '.repeat(20_000)}`,
      USERS.alice,
    );
    const text = visibleText((await t.replies(responseUrl))[0]!);
    expect(text).toMatch(/characters; a one-line request takes at most 1000/);
    expect(text.length).toBeLessThan(1_000);
    expect(t.app.deps.withdrawals.list()).toEqual([]);
  });

  it('a long bad filter value is echoed short', async () => {
    const { responseUrl } = await t.command('/tx', `currency=${'Z'.repeat(1_500)} <!channel>`, USERS.viewer);
    const text = visibleText((await t.replies(responseUrl))[0]!);
    expect(text).toContain('unknown currency “ZZZ');
    expect(text).not.toContain('Z'.repeat(100));
    expect(text).not.toContain('<!channel>');
  });

  it('many bad filters: at most a few errors, then "and N more"', async () => {
    const words = Array.from({ length: 100 }, (_, i) => `bad${i}=x`).join(' ');
    const { responseUrl } = await t.command('/tx', words, USERS.viewer);
    const text = visibleText((await t.replies(responseUrl))[0]!);
    expect(text).toContain('…and 90 more');
    expect(text.length).toBeLessThan(3_000);
  });

  it('a slash command in another channel with a huge text still gets an answer', async () => {
    const body = slashCommand({
      command: '/treasury',
      text: 'x'.repeat(50_000),
      userId: USERS.viewer,
      channelId: CHANNELS.command,
      responseUrl: t.fake.responseUrl(),
    });
    const res = await sendToBolt(t.app.url, t.signingSecret, body);
    expect(res.status).toBe(200);
  });
});

describe('forms whose hidden state comes back wrong', () => {
  for (const metadata of ['null', '[]', '{"id":1}', '{"id":"x","outcome":"maybe"}', 'not json']) {
    it(`resolve modal with private_metadata ${metadata}: the form says it is out of date`, async () => {
      const res = await send(
        interactive({
          type: 'view_submission',
          user: { id: USERS.erin },
          view: {
            id: 'V9',
            callback_id: 'wd_resolve_modal',
            private_metadata: metadata,
            state: { values: { reason: { value: { type: 'plain_text_input', value: 'checked' } } } },
          },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        response_action: 'errors',
        errors: { reason: expect.stringContaining('out of date') },
      });
    });
  }
});
