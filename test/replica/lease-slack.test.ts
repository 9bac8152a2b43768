/**
 * Bolt's own Web API client (respond() through response_url, views, uploads) asks the lease
 * too: a leader that lost its lead answers nothing more, not only the outbox's posts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { leaseFetch } from '../../src/app/slack.js';
import { createLogger } from '../../src/log.js';
import { createSlackApp } from '../../src/slack/app.js';
import { LeadershipLostError } from '../../src/store/pg/index.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { sendToBolt, slashCommand } from '../helpers/slack-requests.js';
import { until } from '../helpers/wait.js';

const SIGNING = 'lease-slack-signing-secret-8c1d';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

describe('the lease before Bolt’s own Slack calls', () => {
  it('a leader whose lease is lost neither responds to a command nor opens a modal', async () => {
    const fake: FakeSlack = await startFakeSlack();
    closers.push(() => fake.close());
    let leads = true;
    const lease = () => {
      if (!leads) throw new LeadershipLostError('this replica no longer leads: fenced');
    };
    const slack = createSlackApp({
      mode: 'http',
      botToken: 'xoxb-lease-test',
      signingSecret: SIGNING,
      apiUrl: fake.url,
      logger: createLogger({ level: 'silent' }),
      wrapFetch: (inner) => leaseFetch(lease, inner),
    });
    const finished: string[] = [];
    slack.app.command('/ping', async ({ ack, respond, client, body }) => {
      await ack();
      const outcome = await Promise.allSettled([
        respond({ text: 'pong' }),
        client.views.open({
          trigger_id: body.trigger_id,
          view: { type: 'modal', title: { type: 'plain_text', text: 'Ping' }, blocks: [] },
        }),
      ]);
      finished.push(outcome.map((o) => o.status).join(','));
    });
    const server = createServer(slack.requestListener!);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const command = (user: string) =>
      sendToBolt(
        base,
        SIGNING,
        slashCommand({
          command: '/ping',
          userId: user,
          responseUrl: fake.responseUrl(),
          triggerId: fake.issueTrigger(user),
        }),
      );

    // leading: both reach Slack
    expect((await command('U0LEASE1')).status).toBe(200);
    await until('the first command done', () => finished[0]);
    expect(finished[0]).toBe('fulfilled,fulfilled');
    expect(fake.responses).toHaveLength(1);
    expect(fake.calls('views.open')).toHaveLength(1);

    // the lease lost: the command is acknowledged, but nothing leaves for Slack
    leads = false;
    expect((await command('U0LEASE2')).status).toBe(200);
    await until('the second command done', () => finished[1]);
    expect(finished[1]).toBe('rejected,rejected');
    expect(fake.responses).toHaveLength(1);
    expect(fake.calls('views.open')).toHaveLength(1);
  }, 30_000);
});
