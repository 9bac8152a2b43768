/**
 * Socket Mode carries the same payloads as HTTP, so the same envelope check applies: a
 * malformed payload over the socket is acknowledged (Slack would redeliver it otherwise)
 * and dropped, the app stays connected and keeps answering, nothing rejects unhandled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startSocketFake, type SocketFake } from '../helpers/socket-fake.js';
import { slashCommand } from '../helpers/slack-requests.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

let sock: SocketFake;
let fake: FakeSlack;
let app: TestApp;
const unhandled: unknown[] = [];
const onUnhandled = (r: unknown) => unhandled.push(r);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  sock = await startSocketFake();
  fake = await startFakeSlack();
  fake.attachSocket(sock);
  app = await startTestApp({ fake, env: { SLACK_APP_TOKEN: 'xapp-1-A0TEST-123-abcdef0123456789' } });
  await sock.connected(5000);
});
afterAll(async () => {
  await app.stop();
  await fake.close();
  await sock.close();
  process.off('unhandledRejection', onUnhandled);
});

describe('malformed envelopes over Socket Mode', () => {
  const cases: Array<[string, 'interactive' | 'events_api' | 'slash_commands', Record<string, unknown>]> = [
    [
      'block_actions without user',
      'interactive',
      { type: 'block_actions', actions: [{ action_id: 'tx_next', type: 'button' }] },
    ],
    [
      'block_actions whose actions is a string',
      'interactive',
      { type: 'block_actions', user: { id: USERS.viewer }, actions: 'nope' },
    ],
    [
      'view_submission whose values are null',
      'interactive',
      {
        type: 'view_submission',
        user: { id: USERS.alice },
        view: { id: 'V1', callback_id: 'wd_request_modal', state: { values: null } },
      },
    ],
    ['an event without event', 'events_api', { type: 'event_callback', team_id: 'T1' }],
    [
      'a slash command without user_id',
      'slash_commands',
      {
        command: '/tx',
        text: '',
        channel_id: 'C1',
        team_id: 'T1',
        response_url: 'http://127.0.0.1:1/x',
        trigger_id: 't',
      },
    ],
  ];
  for (const [name, type, payload] of cases) {
    it(`${name}: acknowledged, and the app keeps answering`, async () => {
      const ack = await sock.sendEnvelope(type, payload, { timeoutMs: 2_000 });
      expect(ack.envelope_id).toBeTruthy();
      const responseUrl = fake.responseUrl({ channel: 'C0WORKROOM', user: USERS.viewer });
      await sock.sendEnvelope(
        'slash_commands',
        slashCommand({ command: '/treasury', text: 'help', userId: USERS.viewer, responseUrl }).payload,
      );
      const [reply] = await app.replies(responseUrl);
      expect(visibleText(reply!)).toContain('Treasury commands');
      expect(unhandled).toEqual([]);
    });
  }
});
