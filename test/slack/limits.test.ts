/**
 * The one gate for Slack's limits: every WebClient built with webClientOptions() (Bolt's
 * clients and the outbox's) and every response_url post goes through limitedFetch, so an
 * oversize message reaches Slack cut to fit instead of being refused. Checked on the wire,
 * as the recording fake Slack receives it.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webClientOptions } from '../../src/slack/app.js';
import { limitedFetch } from '../../src/slack/limits.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { limitViolations } from './limits-check.js';

let fake: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  fake = await startFakeSlack();
  client = new WebClient('xoxb-limits-test', webClientOptions(fake.url));
});
afterAll(async () => {
  await fake.close();
});

const section = (n: number) => ({ type: 'section', text: { type: 'mrkdwn', text: `line ${n} ${'é'.repeat(4_000)}` } });

describe('Slack limits on the wire', () => {
  it('chat.postMessage: text, blocks, sections, header, buttons cut to fit, with "and N more"', async () => {
    await client.chat.postMessage({
      channel: 'C0LIMITS',
      text: 'x'.repeat(300_000),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'H'.repeat(400) } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'B'.repeat(200) },
              action_id: 'a',
              value: 'v'.repeat(5_000),
            },
          ],
        },
        ...Array.from({ length: 70 }, (_, i) => section(i)),
      ] as never,
    });
    const [call] = fake.calls('chat.postMessage');
    expect(limitViolations([call!])).toEqual([]);
    expect(String(call!.args.text).length).toBe(40_000);
    const blocks = call!.args.blocks as Array<{ type: string; elements?: Array<{ text: string }> }>;
    expect(blocks).toHaveLength(50);
    expect(blocks.at(-1)!.elements![0]!.text).toBe('…and 23 more not shown.');
  });

  it('views.open: title, buttons and block count of a modal', async () => {
    await client.views.open({
      trigger_id: '1.2.3',
      view: {
        type: 'modal',
        title: { type: 'plain_text', text: 'A title far longer than twenty-four characters' },
        submit: { type: 'plain_text', text: 'Submit this very long form now' },
        private_metadata: 'm'.repeat(4_000),
        blocks: Array.from({ length: 120 }, (_, i) => section(i)),
      } as never,
    });
    const [call] = fake.calls('views.open');
    expect(limitViolations([call!])).toEqual([]);
  });

  it('a response_url post is clamped too', async () => {
    const url = fake.responseUrl({ channel: 'C0LIMITS', user: 'U0LIMITS' });
    const res = await limitedFetch()(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'y'.repeat(100_000), blocks: Array.from({ length: 60 }, (_, i) => section(i)) }),
    });
    expect(res.ok).toBe(true);
    const post = fake.responses.find((r) => r.url === url)!;
    expect(limitViolations([], [post])).toEqual([]);
  });

  it('a response_url post is clamped whichever way its headers are given (a Headers, pairs)', async () => {
    for (const headers of [
      new Headers({ 'content-type': 'application/json; charset=utf-8' }),
      [['CONTENT-TYPE', 'application/json']] as [string, string][],
    ]) {
      const url = fake.responseUrl({ channel: 'C0LIMITS', user: 'U0LIMITS' });
      await limitedFetch()(url, { method: 'POST', headers, body: JSON.stringify({ text: 'z'.repeat(100_000) }) });
      const post = fake.responses.find((r) => r.url === url)!;
      expect(String(post.body.text).length).toBeLessThan(100_000);
      expect(limitViolations([], [post])).toEqual([]);
    }
  });

  it('other calls pass unchanged', async () => {
    await client.conversations.open({ users: 'U0SOMEONE' });
    expect(fake.calls('conversations.open').at(-1)!.args.users).toBe('U0SOMEONE');
  });
});
