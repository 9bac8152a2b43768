/**
 * Proves the Slack harness against bare Bolt (no project code): if these pass, a failing
 * project test points at the project, not at the fakes.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { App, HTTPReceiver, webApi } from '@slack/bolt';
import { createCaptureLogger, type CaptureLogger } from './capture-logger.js';
import { startBareBoltApp } from './bare-bolt.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { SLACK_IDS } from './slack-ids.js';
import {
  BAD_SIGNATURE,
  blockAction,
  eventCallback,
  sendToBolt,
  slackSignature,
  slashCommand,
  staleTimestamp,
  viewSubmission,
} from './slack-requests.js';
import { startSocketFake } from './socket-fake.js';

// app.start() in Socket Mode waits for Slack's hello forever; fail with a reason instead of at the test timeout.
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const SIGNING_SECRET = 'harness-signing-secret-0001';
const BOT_TOKEN = 'xoxb-harness-bot-token';
const APP_TOKEN = 'xapp-1-A0FAKE0001-1-harnessapptoken';

interface Seen {
  actions: Array<{ actionId: string; value: unknown; user: string }>;
  submissions: Array<{ callbackId: string; privateMetadata: string; values: unknown }>;
}

function pingHandlers(app: App, seen?: Seen): void {
  app.command('/ping', async ({ ack, command, client, respond }) => {
    await ack();
    await client.chat.postMessage({ channel: command.channel_id, text: `pong ${command.text}`.trim() });
    await respond({ response_type: 'ephemeral', text: 'pong, only for you' });
  });
  if (!seen) return;
  app.command('/modal', async ({ ack, command, client }) => {
    await ack();
    await client.views.open({
      trigger_id: command.trigger_id,
      view: { type: 'modal', callback_id: 'withdraw', title: { type: 'plain_text', text: 'Withdraw' }, blocks: [] },
    });
  });
  app.action('approve', async ({ ack, action, body, respond }) => {
    await ack();
    seen.actions.push({
      actionId: (action as { action_id: string }).action_id,
      value: (action as { value?: string }).value,
      user: body.user.id,
    });
    await respond({ replace_original: true, text: `Approved by <@${body.user.id}>` });
  });
  app.view('withdraw', async ({ ack, view }) => {
    seen.submissions.push({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: view.state.values,
    });
    await ack({ response_action: 'errors', errors: { amount: 'Amount must be positive' } });
  });
  app.event('app_home_opened', async ({ event, client }) => {
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Treasury home' } }] },
    });
  });
}

describe('Bolt over HTTP against the fake Web API', () => {
  let fake: FakeSlack;
  let app: App;
  let receiver: HTTPReceiver;
  let base: string;
  let logger: CaptureLogger;
  const seen: Seen = { actions: [], submissions: [] };

  beforeAll(async () => {
    fake = await startFakeSlack();
    logger = createCaptureLogger();
    receiver = new HTTPReceiver({ signingSecret: SIGNING_SECRET, logger });
    app = new App({ receiver, token: BOT_TOKEN, logger, clientOptions: { slackApiUrl: fake.url } });
    pingHandlers(app, seen);
    const server = await receiver.start({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await receiver.stop();
    await fake.close();
  });
  beforeEach(() => {
    seen.actions.length = 0;
    seen.submissions.length = 0;
  });

  it('a signed slash command is acked, posts a message and answers on its response_url', async () => {
    const responseUrl = fake.responseUrl({ channel: SLACK_IDS.channelId, user: SLACK_IDS.userId });
    const res = await sendToBolt(base, SIGNING_SECRET, slashCommand({ command: '/ping', text: 'hello', responseUrl }));
    expect(res.status).toBe(200);
    expect(res.body).toBe('');

    const post = await fake.waitFor('chat.postMessage', (c) => c.args.text === 'pong hello');
    expect(post.token).toBe(BOT_TOKEN);
    expect(post.args.channel).toBe(SLACK_IDS.channelId);
    expect(fake.channel(SLACK_IDS.channelId).map((m) => m.text)).toContain('pong hello');

    const answer = await fake.waitFor('response_url', (c) => c.args.text === 'pong, only for you');
    expect(answer.args.response_type).toBe('ephemeral');
    expect(fake.responseMessages(responseUrl)).toEqual([{ response_type: 'ephemeral', text: 'pong, only for you' }]);
    // Bolt verifies the bot token once, before the first listener runs.
    expect(fake.calls('auth.test').length).toBeGreaterThanOrEqual(1);
  });

  it('a bad signature gets 401 and nothing is posted', async () => {
    fake.reset();
    const bad = await sendToBolt(
      base,
      SIGNING_SECRET,
      slashCommand({ command: '/ping', text: 'forged', responseUrl: fake.responseUrl() }),
      {
        signature: BAD_SIGNATURE,
      },
    );
    expect(bad.status).toBe(401);
    const wrongSecret = await sendToBolt(
      base,
      'not-the-secret',
      slashCommand({ command: '/ping', text: 'forged too' }),
    );
    expect(wrongSecret.status).toBe(401);

    // A genuine request after them is the barrier: once its post arrives, a forged one would have too.
    const ok = await sendToBolt(
      base,
      SIGNING_SECRET,
      slashCommand({ command: '/ping', text: 'genuine', responseUrl: fake.responseUrl() }),
    );
    expect(ok.status).toBe(200);
    await fake.waitFor('response_url');
    expect(fake.calls('chat.postMessage').map((c) => c.args.text)).toEqual(['pong genuine']);
  });

  it('a stale timestamp (6 minutes old) gets 401 even with a valid signature for it', async () => {
    const cmd = slashCommand({ command: '/ping', text: 'replayed' });
    const ts = staleTimestamp(6);
    const res = await sendToBolt(base, SIGNING_SECRET, cmd, {
      timestamp: ts,
      signature: slackSignature(SIGNING_SECRET, ts, cmd.body),
    });
    expect(res.status).toBe(401);
    // Four minutes is inside Slack's window: the same construction passes, so the 401 above is about age.
    const fresh = staleTimestamp(4);
    const responseUrl = fake.responseUrl();
    const ok = await sendToBolt(base, SIGNING_SECRET, slashCommand({ command: '/ping', text: 'recent', responseUrl }), {
      timestamp: fresh,
    });
    expect(ok.status).toBe(200);
    // Let its listener finish so its post does not land in the next test.
    await fake.waitFor('chat.postMessage', (c) => c.args.text === 'pong recent');
    await fake.waitFor('response_url', (c) => c.args.response_url_id === responseUrl.split('/').pop());
  });

  it('a block action reaches its handler and respond() replaces the original message', async () => {
    fake.reset();
    const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.url, logger });
    const blocks = [
      { type: 'section', block_id: 'req', text: { type: 'mrkdwn', text: 'Withdraw 100 USDT?' } },
      {
        type: 'actions',
        block_id: 'decide',
        elements: [
          { type: 'button', action_id: 'approve', value: 'req-42', text: { type: 'plain_text', text: 'Approve' } },
        ],
      },
    ];
    const posted = await client.chat.postMessage({ channel: SLACK_IDS.channelId, text: 'Withdraw 100 USDT?', blocks });
    const ts = posted.ts!;
    const responseUrl = fake.responseUrl({ channel: SLACK_IDS.channelId, messageTs: ts });

    const body = blockAction({
      action: { actionId: 'approve', value: 'req-42' },
      message: { ts, text: 'Withdraw 100 USDT?', blocks },
      userId: 'U0CAROL001',
      responseUrl,
    });
    expect((body.payload.actions as Array<{ block_id: string }>)[0]!.block_id).toBe('decide');
    const res = await sendToBolt(base, SIGNING_SECRET, body);
    expect(res.status).toBe(200);

    await fake.waitFor('response_url');
    expect(seen.actions).toEqual([{ actionId: 'approve', value: 'req-42', user: 'U0CAROL001' }]);
    const [message] = fake.channel(SLACK_IDS.channelId);
    expect(message?.text).toBe('Approved by <@U0CAROL001>');
    expect(message?.blocks).toBeUndefined();
    expect(message?.edited).toBeDefined();
  });

  it('a view submission reaches its handler and its ack body is returned to Slack', async () => {
    fake.reset();
    const open = await sendToBolt(base, SIGNING_SECRET, slashCommand({ command: '/modal' }));
    expect(open.status).toBe(200);
    const opened = await fake.waitFor('views.open');
    expect((opened.args.view as { callback_id: string }).callback_id).toBe('withdraw');
    const view = fake.views()[0]!;
    expect(view.type).toBe('modal');

    const values = { amount: { amount_input: { type: 'plain_text_input', value: '-5' } } };
    const res = await sendToBolt(
      base,
      SIGNING_SECRET,
      viewSubmission({ callbackId: 'withdraw', viewId: view.id, privateMetadata: '{"draft":1}', values }),
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ response_action: 'errors', errors: { amount: 'Amount must be positive' } });
    expect(seen.submissions).toEqual([{ callbackId: 'withdraw', privateMetadata: '{"draft":1}', values }]);
  });

  it('an Events API callback (JSON body) reaches its handler', async () => {
    fake.reset();
    const res = await sendToBolt(
      base,
      SIGNING_SECRET,
      eventCallback({ event: { type: 'app_home_opened', user: 'U0DAVE0001', channel: 'D0DAVE0001', tab: 'home' } }),
    );
    expect(res.status).toBe(200);
    await fake.waitFor('views.publish');
    expect(fake.homeTab('U0DAVE0001')?.blocks).toHaveLength(1);
  });

  it('files.uploadV2 lands in fake.files() with its name, bytes, channel and thread', async () => {
    fake.reset();
    const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.url, logger });
    const parent = await client.chat.postMessage({ channel: SLACK_IDS.channelId, text: 'export follows' });
    const csv = 'hash,amount\n0xabc,100.25\n';
    const result = await client.files.uploadV2({
      channel_id: SLACK_IDS.channelId,
      thread_ts: parent.ts!,
      content: csv,
      filename: 'transactions.csv',
      title: 'Transactions',
      initial_comment: 'Your export',
    });
    expect(result.ok).toBe(true);

    const [file] = fake.files();
    expect(file).toMatchObject({
      name: 'transactions.csv',
      title: 'Transactions',
      channel: SLACK_IDS.channelId,
      thread_ts: parent.ts,
      initial_comment: 'Your export',
    });
    expect(file?.text).toBe(csv);
    expect(file?.content.equals(Buffer.from(csv))).toBe(true);
    expect(file?.declaredLength).toBe(Buffer.byteLength(csv));
    const reply = fake.thread(SLACK_IDS.channelId, parent.ts!);
    expect(reply.map((m) => [m.text, m.files?.[0]?.name])).toEqual([['Your export', 'transactions.csv']]);
  });

  it('binary uploads keep their bytes exactly', async () => {
    fake.reset();
    const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.url, logger });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    await client.files.uploadV2({ channel_id: 'C0OTHER001', file: png, filename: 'qr.png' });
    expect(fake.files()[0]?.content.equals(png)).toBe(true);
  });
});

describe('failure injection', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const client = (o: ConstructorParameters<typeof webApi.WebClient>[1] = {}): InstanceType<typeof webApi.WebClient> =>
    new webApi.WebClient(BOT_TOKEN, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      logger: createCaptureLogger(),
      ...o,
    });

  it('429 carries Retry-After', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const err = await client({ rejectRateLimitedCalls: true })
      .chat.postMessage({ channel: 'C1', text: 'x' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(fake.calls('chat.postMessage')[0]?.status).toBe(429);
    expect(fake.channel('C1')).toEqual([]);
  });

  it('a rate-limited call succeeds when the client retries after Retry-After', async () => {
    fake.failNext('chat.postMessage', { retryAfter: 0 });
    const res = await client({ retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } }).chat.postMessage({
      channel: 'C1',
      text: 'eventually',
    });
    expect(res.ok).toBe(true);
    expect(fake.calls('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
    expect(fake.channel('C1').map((m) => m.text)).toEqual(['eventually']);
  });

  it('500 is served as configured, then the method works again', async () => {
    fake.failNext('chat.postMessage', { status: 500 });
    const err = await client()
      .chat.postMessage({ channel: 'C1', text: 'x' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: webApi.ErrorCode.HTTPError, statusCode: 500 });
    await expect(client().chat.postMessage({ channel: 'C1', text: 'y' })).resolves.toMatchObject({ ok: true });
  });

  it('{ ok: false, error } repeats for `times` calls', async () => {
    fake.failNext('chat.update', { error: 'cant_update_message', times: 2 });
    const c = client();
    const posted = await c.chat.postMessage({ channel: 'C1', text: 'v1' });
    for (let i = 0; i < 2; i++) {
      await expect(c.chat.update({ channel: 'C1', ts: posted.ts!, text: 'v2' })).rejects.toMatchObject({
        data: { error: 'cant_update_message' },
      });
    }
    await c.chat.update({ channel: 'C1', ts: posted.ts!, text: 'v2' });
    expect(fake.channel('C1').map((m) => m.text)).toEqual(['v2']);
  });

  it('a slow answer trips a client timeout', async () => {
    fake.failNext('chat.postMessage', { delayMs: 400 });
    const err = await client({ timeout: 50 })
      .chat.postMessage({ channel: 'C1', text: 'slow' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: webApi.ErrorCode.RequestError });
    // The fake still saw the call: a timeout does not mean Slack did nothing.
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
  });

  it('unknown methods answer 200 unknown_method (a 404 would make WebClient retry)', async () => {
    const res = await fetch(`${fake.url}chat.doesNotExist`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOT_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: false, error: 'unknown_method' });
  });

  it('missing or wrong-type tokens are refused like Slack does', async () => {
    const anon = await fetch(`${fake.url}chat.postMessage`, {
      method: 'POST',
      body: new URLSearchParams({ channel: 'C1', text: 'x' }),
    });
    expect(await anon.json()).toMatchObject({ ok: false, error: 'not_authed' });
    await expect(
      new webApi.WebClient(APP_TOKEN, {
        slackApiUrl: fake.url,
        retryConfig: { retries: 0 },
        logger: createCaptureLogger(),
      }).chat.postMessage({ channel: 'C1', text: 'x' }),
    ).rejects.toMatchObject({
      data: { error: 'not_allowed_token_type' },
    });
  });

  it('waitFor rejects listing what was called', async () => {
    await client().chat.postMessage({ channel: 'C1', text: 'only this' });
    await expect(fake.waitFor('views.open', undefined, 50)).rejects.toThrow(
      /no views\.open call within 50 ms; calls seen: chat\.postMessage x1/,
    );
    await expect(fake.waitFor('chat.postMessage', (c) => c.args.text === 'other', 50)).rejects.toThrow(
      /matching the predicate[\s\S]*only this/,
    );
  });
});

describe('the user-visible model', () => {
  let fake: FakeSlack;
  let c: InstanceType<typeof webApi.WebClient>;
  beforeAll(async () => {
    fake = await startFakeSlack({
      usergroups: { S0APPROVERS: ['U0CAROL001', 'U0DAVE0001'] },
      users: { U0CAROL001: { real_name: 'Carol Approver' } },
    });
    c = new webApi.WebClient(BOT_TOKEN, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      logger: createCaptureLogger(),
    });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('updates, deletes, threads and ephemerals', async () => {
    const a = await c.chat.postMessage({
      channel: 'C1',
      text: 'a',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'a' } }],
    });
    const b = await c.chat.postMessage({ channel: 'C1', text: 'b' });
    expect(a.ts).not.toBe(b.ts);
    const r = await c.chat.postMessage({ channel: 'C1', text: 'reply', thread_ts: a.ts! });
    await c.chat.update({ channel: 'C1', ts: a.ts!, text: 'a2' });
    await c.chat.delete({ channel: 'C1', ts: b.ts! });
    await c.chat.postEphemeral({ channel: 'C1', user: 'U0ALICE001', text: 'psst' });

    const msgs = fake.channel('C1');
    expect(msgs.map((m) => m.text)).toEqual(['a2', 'reply']);
    expect(msgs[0]?.blocks).toHaveLength(1); // omitted blocks survive an update, as on Slack
    expect(msgs[0]?.reply_count).toBe(1);
    expect(fake.thread('C1', a.ts!).map((m) => m.ts)).toEqual([r.ts]);
    expect(fake.ephemerals('C1', 'U0ALICE001').map((e) => e.text)).toEqual(['psst']);
    expect(fake.ephemerals('C1', 'U0OTHER001')).toEqual([]);
    await expect(c.chat.update({ channel: 'C1', ts: b.ts!, text: 'gone' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    const link = await c.chat.getPermalink({ channel: 'C1', message_ts: r.ts! });
    expect(link.permalink).toContain(`p${r.ts!.replace('.', '')}?thread_ts=${a.ts}`);
  });

  it('conversations.history: newest first, threads folded, oldest/latest/inclusive, limit and cursor, metadata on request', async () => {
    const meta = { event_type: 'test_event', event_payload: { id: 'x1' } };
    const a = await c.chat.postMessage({ channel: 'C1', text: 'a' });
    const b = await c.chat.postMessage({ channel: 'C1', text: 'b', metadata: meta });
    await c.chat.postMessage({ channel: 'C1', text: 'reply', thread_ts: a.ts! });
    await c.chat.postMessage({ channel: 'C1', text: 'broadcast', thread_ts: a.ts!, reply_broadcast: true });
    const d = await c.chat.postMessage({ channel: 'C1', text: 'd' });
    await c.chat.postMessage({ channel: 'C2', text: 'elsewhere' });
    const texts = (r: { messages?: Array<{ text?: string }> }) => r.messages?.map((m) => m.text);

    const all = await c.conversations.history({ channel: 'C1' });
    expect(texts(all)).toEqual(['d', 'broadcast', 'b', 'a']);
    expect(all.has_more).toBe(false);
    const parent = all.messages!.find((m) => m.text === 'a')!;
    expect(parent).toMatchObject({ ts: a.ts, thread_ts: a.ts, reply_count: 2 });
    expect(all.messages!.find((m) => m.text === 'b')!.metadata).toBeUndefined();
    const withMeta = await c.conversations.history({ channel: 'C1', include_all_metadata: true });
    expect(withMeta.messages!.find((m) => m.text === 'b')!.metadata).toEqual(meta);

    expect(texts(await c.conversations.history({ channel: 'C1', oldest: b.ts! }))).toEqual(['d', 'broadcast']);
    expect(texts(await c.conversations.history({ channel: 'C1', oldest: b.ts!, inclusive: true }))).toEqual([
      'd',
      'broadcast',
      'b',
    ]);
    expect(texts(await c.conversations.history({ channel: 'C1', latest: d.ts! }))).toEqual(['broadcast', 'b', 'a']);
    expect(
      texts(await c.conversations.history({ channel: 'C1', oldest: a.ts!, latest: d.ts!, inclusive: true })),
    ).toEqual(['d', 'broadcast', 'b', 'a']);

    const first = await c.conversations.history({ channel: 'C1', limit: 3 });
    expect(texts(first)).toEqual(['d', 'broadcast', 'b']);
    expect(first.has_more).toBe(true);
    const second = await c.conversations.history({
      channel: 'C1',
      limit: 3,
      cursor: first.response_metadata!.next_cursor!,
    });
    expect(texts(second)).toEqual(['a']);
    expect(second.has_more).toBe(false);
    expect(second.response_metadata?.next_cursor).toBe('');

    expect((await c.conversations.history({ channel: 'C0EMPTY' })).messages).toEqual([]);
    await expect(c.conversations.history({ channel: 'C1', cursor: 'bm9wZQ==' })).rejects.toMatchObject({
      data: { error: 'invalid_cursor' },
    });
    await expect(c.conversations.history({ channel: 'C1', oldest: 'yesterday' })).rejects.toMatchObject({
      data: { error: 'invalid_ts_oldest' },
    });
  });

  it('conversations.replies: the parent then its replies oldest first, from the parent or any reply', async () => {
    const meta = { event_type: 'test_event', event_payload: { id: 'r2' } };
    const p = await c.chat.postMessage({ channel: 'C1', text: 'parent' });
    const lone = await c.chat.postMessage({ channel: 'C1', text: 'lone' });
    const r1 = await c.chat.postMessage({ channel: 'C1', text: 'r1', thread_ts: p.ts! });
    await c.chat.postMessage({ channel: 'C1', text: 'r2', thread_ts: p.ts!, metadata: meta });
    await c.chat.postMessage({ channel: 'C1', text: 'r3', thread_ts: p.ts! });
    const texts = (r: { messages?: Array<{ text?: string }> }) => r.messages?.map((m) => m.text);

    const thread = await c.conversations.replies({ channel: 'C1', ts: p.ts! });
    expect(texts(thread)).toEqual(['parent', 'r1', 'r2', 'r3']);
    expect(thread.messages!.every((m) => m.thread_ts === p.ts)).toBe(true);
    expect(thread.messages!.find((m) => m.text === 'r2')!.metadata).toBeUndefined();
    const withMeta = await c.conversations.replies({ channel: 'C1', ts: p.ts!, include_all_metadata: true });
    expect(withMeta.messages!.find((m) => m.text === 'r2')!.metadata).toEqual(meta);
    expect(texts(await c.conversations.replies({ channel: 'C1', ts: r1.ts! }))).toEqual(['parent', 'r1', 'r2', 'r3']);

    // The parent stays first even when the window starts after it.
    expect(texts(await c.conversations.replies({ channel: 'C1', ts: p.ts!, oldest: r1.ts! }))).toEqual([
      'parent',
      'r2',
      'r3',
    ]);
    expect(texts(await c.conversations.replies({ channel: 'C1', ts: p.ts!, oldest: r1.ts!, inclusive: true }))).toEqual(
      ['parent', 'r1', 'r2', 'r3'],
    );

    const first = await c.conversations.replies({ channel: 'C1', ts: p.ts!, limit: 2 });
    expect(texts(first)).toEqual(['parent', 'r1']);
    expect(first.has_more).toBe(true);
    const rest = await c.conversations.replies({
      channel: 'C1',
      ts: p.ts!,
      limit: 2,
      cursor: first.response_metadata!.next_cursor!,
    });
    expect(texts(rest)).toEqual(['r2', 'r3']);
    expect(rest.has_more).toBe(false);

    expect(texts(await c.conversations.replies({ channel: 'C1', ts: lone.ts! }))).toEqual(['lone']);
    await expect(c.conversations.replies({ channel: 'C1', ts: '1.000001' })).rejects.toMatchObject({
      data: { error: 'thread_not_found' },
    });
    await expect(c.conversations.replies({ channel: 'C2', ts: p.ts! })).rejects.toMatchObject({
      data: { error: 'thread_not_found' },
    });
  });

  it('DMs, users and user groups', async () => {
    const dm = await c.conversations.open({ users: 'U0CAROL001' });
    expect(dm.channel?.id).toMatch(/^D/);
    await c.chat.postMessage({ channel: 'U0CAROL001', text: 'direct' });
    expect(fake.channel(dm.channel!.id!).map((m) => m.text)).toEqual(['direct']);
    expect((await c.users.info({ user: 'U0CAROL001' })).user?.real_name).toBe('Carol Approver');
    expect((await c.usergroups.users.list({ usergroup: 'S0APPROVERS' })).users).toEqual(['U0CAROL001', 'U0DAVE0001']);
    await expect(c.usergroups.users.list({ usergroup: 'S0NOPE' })).rejects.toMatchObject({
      data: { error: 'no_such_subteam' },
    });
  });

  it('views.update honours hash, Block Kit limits are enforced', async () => {
    const opened = await c.views.open({
      trigger_id: '1.2.3',
      view: { type: 'modal', title: { type: 'plain_text', text: 'One' }, blocks: [] },
    });
    const id = opened.view!.id!;
    await expect(
      c.views.update({
        view_id: id,
        hash: 'stale',
        view: { type: 'modal', title: { type: 'plain_text', text: 'Two' }, blocks: [] },
      }),
    ).rejects.toMatchObject({
      data: { error: 'hash_conflict' },
    });
    await c.views.update({
      view_id: id,
      hash: opened.view!.hash!,
      view: { type: 'modal', title: { type: 'plain_text', text: 'Two' }, blocks: [] },
    });
    expect((fake.view(id)?.title as { text: string } | undefined)?.text).toBe('Two');
    const many = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    await expect(c.chat.postMessage({ channel: 'C1', text: 'x', blocks: many })).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
  });

  it('response_url: replace_original replaces, in_channel shows in the channel, five uses at most', async () => {
    const url = fake.responseUrl({ channel: 'C1' });
    const post = (body: object): Promise<Response> =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ text: 'working…' })).status).toBe(200);
    await post({ text: 'done', replace_original: true });
    await post({ text: 'for everyone', response_type: 'in_channel' });
    expect(fake.responseMessages(url).map((m) => m.text)).toEqual(['done', 'for everyone']);
    expect(fake.channel('C1').map((m) => m.text)).toEqual(['for everyone']);
    await post({ text: '4' });
    await post({ text: '5' });
    const sixth = await post({ text: '6' });
    expect(sixth.status).toBe(404);
    expect(fake.responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 404]);
    expect((await fetch(`${fake.origin}/response/never-issued`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

describe('Socket Mode against the socket fake', () => {
  it('connects, acks a slash command envelope and runs the handler', async () => {
    const fake = await startFakeSlack();
    const sock = await startSocketFake();
    fake.attachSocket(sock);
    const logger = createCaptureLogger();
    const app = new App({
      socketMode: true,
      appToken: APP_TOKEN,
      token: BOT_TOKEN,
      logger,
      clientOptions: { slackApiUrl: fake.url },
    });
    pingHandlers(app);
    try {
      await within(app.start(), 5000, 'Socket Mode app.start()');
      await sock.connected();
      const open = fake.calls('apps.connections.open');
      expect(open.map((call) => call.token)).toEqual([APP_TOKEN]);

      const responseUrl = fake.responseUrl();
      const cmd = slashCommand({ command: '/ping', text: 'over socket', responseUrl });
      const ack = await sock.sendEnvelope('slash_commands', cmd.payload);
      expect(ack.envelope_id).toMatch(/^[0-9a-f-]{36}$/);

      await fake.waitFor('chat.postMessage', (c) => c.args.text === 'pong over socket');
      await fake.waitFor('response_url');
      expect(fake.responseMessages(responseUrl).map((m) => m.text)).toEqual(['pong, only for you']);
      const sent = sock.received.filter((m) => (m as { envelope_id?: string }).envelope_id === ack.envelope_id);
      expect(sent).toHaveLength(1);
    } finally {
      await app.stop();
      await sock.close();
      await fake.close();
    }
    expect(sock.connectionCount()).toBe(0);
  });

  it('an envelope nobody acks rejects after the timeout', async () => {
    const fake = await startFakeSlack();
    const sock = await startSocketFake();
    fake.attachSocket(sock);
    const app = new App({
      socketMode: true,
      appToken: APP_TOKEN,
      token: BOT_TOKEN,
      logger: createCaptureLogger(),
      clientOptions: { slackApiUrl: fake.url },
    });
    // No listener for /unhandled: Bolt never acks it.
    try {
      await within(app.start(), 5000, 'Socket Mode app.start()');
      await expect(
        sock.sendEnvelope('slash_commands', slashCommand({ command: '/unhandled' }).payload, { timeoutMs: 100 }),
      ).rejects.toThrow(/no ack/);
    } finally {
      await app.stop();
      await sock.close();
      await fake.close();
    }
  });
});

describe('bare Bolt baseline', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await fake.close();
  });
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('/noop acks with an empty 200', async () => {
    const bare = await startBareBoltApp({ fakeSlackUrl: fake.url, signingSecret: SIGNING_SECRET });
    stop = bare.stop;
    const res = await sendToBolt(bare.url, SIGNING_SECRET, slashCommand({ command: '/noop' }));
    expect(res).toMatchObject({ status: 200, body: '' });
    const forged = await sendToBolt(bare.url, SIGNING_SECRET, slashCommand({ command: '/noop' }), {
      signature: BAD_SIGNATURE,
    });
    expect(forged.status).toBe(401);
  });
});
