import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import {
  COLLECTIONS,
  createOutbox,
  METADATA_EVENT_TYPE,
  type Outbox,
  type OutboxEntry,
  type OutboxOptions,
} from '../../src/outbox/index.js';
import { collection, openStore, type Store } from '../../src/store/index.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { registerBurstSummaryRenderer } from '../../src/slack/burst-summary.js';
import { testRenderer } from '../helpers/renderers.js';

const logger = createLogger({ level: 'silent' });
const CH = 'C0OUTBOX01';
const CH2 = 'C0OUTBOX02';

interface Item {
  id: string;
  text: string;
}
const ITEMS = collection<Item>('items');

let dir: string;
let store: Store;
let fake: FakeSlack;
let outbox: Outbox | undefined;

function client(timeoutMs = 2000): WebClient {
  return new WebClient('xoxb-outbox-test', {
    slackApiUrl: fake.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: timeoutMs,
  });
}

function makeOutbox(o: Partial<OutboxOptions> = {}, timeoutMs?: number): Outbox {
  const ob = createOutbox({
    store,
    client: client(timeoutMs),
    logger,
    paceMs: 2,
    baseBackoffMs: 10,
    maxBackoffMs: 50,
    unknownOutcomeDelayMs: 50,
    ...o,
  });
  ob.registerRenderer(testRenderer('item'), (ref) => {
    const item = store.get(ITEMS, ref);
    return item ? { text: item.text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: item.text } }] } : null;
  });
  ob.registerRenderer(testRenderer('line'), (ref) => ({ text: ref }));
  registerBurstSummaryRenderer(ob);
  outbox = ob;
  return ob;
}

/** A domain change and its Slack post, in one commit, as the app does it. */
async function post(ob: Outbox, id: string, text: string, channel = CH, burst = false): Promise<void> {
  await store.commit((tx) => {
    tx.put(ITEMS, id, { id, text });
    ob.enqueue(tx, {
      op: 'post',
      renderer: testRenderer('item'),
      ref: id,
      key: `item:${id}`,
      channel,
      ...(burst ? { burst: { label: 'deposit' } } : {}),
    });
  });
}

async function change(ob: Outbox, id: string, text: string): Promise<void> {
  await store.commit((tx) => {
    tx.put(ITEMS, id, { id, text });
    ob.enqueue(tx, { op: 'update', renderer: testRenderer('item'), ref: id, key: `item:${id}` });
  });
}

const topLevel = (channel = CH) => fake.channel(channel).filter((m) => !m.thread_ts);

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'outbox-'));
  store = await openStore({ dir, logger });
  fake = await startFakeSlack();
});

afterEach(async () => {
  await outbox?.stop();
  outbox = undefined;
  await store.close().catch(() => undefined);
  await fake.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('outbox', () => {
  it('posts with metadata, stores the ts under the key, and collapses queued edits into the render at send time', async () => {
    const ob = makeOutbox();
    await post(ob, 'a', 'v1');
    await change(ob, 'a', 'v2');
    await change(ob, 'a', 'v3');
    ob.start();
    await ob.drain();
    const msgs = topLevel();
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.text).toBe('v3');
    expect(msgs[0]!.metadata).toEqual({
      event_type: METADATA_EVENT_TYPE,
      event_payload: { outbox_id: expect.any(String) },
    });
    expect(fake.calls('chat.update')).toHaveLength(0);
    expect(ob.message('item:a')).toMatchObject({ channel: CH, ts: msgs[0]!.ts });
    const entries = store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.every((e) => e.state === 'done')).toBe(true);

    // Later edits go to the same message.
    await change(ob, 'a', 'v4');
    await ob.drain();
    expect(topLevel()).toHaveLength(1);
    expect(topLevel()[0]!.text).toBe('v4');
    expect(fake.calls('chat.update')).toHaveLength(1);
  });

  it('replies in the thread of a key, sends DMs and ephemerals', async () => {
    const ob = makeOutbox();
    ob.start();
    await post(ob, 'a', 'parent');
    await store.commit((tx) => {
      ob.enqueue(tx, { op: 'reply', renderer: testRenderer('line'), ref: 'first reply', key: 'item:a' });
      ob.enqueue(tx, {
        op: 'dm',
        renderer: testRenderer('line'),
        ref: 'hello in private',
        user: 'U0DMUSER1',
        key: 'dm:1',
      });
      ob.enqueue(tx, {
        op: 'ephemeral',
        renderer: testRenderer('line'),
        ref: 'only you',
        channel: CH,
        user: 'U0DMUSER1',
      });
    });
    await ob.drain();
    const parent = topLevel()[0]!;
    expect(fake.thread(CH, parent.ts).map((m) => m.text)).toEqual(['first reply']);
    expect(fake.channel(fake.dmChannel('U0DMUSER1')).map((m) => m.text)).toEqual(['hello in private']);
    expect(fake.ephemerals(CH, 'U0DMUSER1').map((e) => e.text)).toEqual(['only you']);
  });

  it('paces posts to one channel (a minimum gap between them), each channel on its own', async () => {
    const PACE = 150;
    const ob = makeOutbox({ paceMs: PACE });
    for (const i of [1, 2, 3]) await post(ob, `a${i}`, `first channel ${i}`, CH);
    for (const i of [1, 2, 3]) await post(ob, `b${i}`, `second channel ${i}`, CH2);
    ob.start();
    await ob.drain();
    const posts = (channel: string) => fake.calls('chat.postMessage').filter((c) => c.args.channel === channel);
    for (const channel of [CH, CH2]) {
      const at = posts(channel).map((c) => c.at);
      expect(at).toHaveLength(3);
      // The next post goes out no sooner than the pace after the previous one was answered;
      // a few ms of slack only so that a change of where the gap is measured from stays green.
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(PACE - 5);
    }
    // The second channel's first post did not queue behind the first channel's paced posts.
    expect(posts(CH2)[0]!.at).toBeLessThan(posts(CH)[1]!.at);
    expect(topLevel(CH).map((m) => m.text)).toEqual(['first channel 1', 'first channel 2', 'first channel 3']);
    expect(topLevel(CH2).map((m) => m.text)).toEqual(['second channel 1', 'second channel 2', 'second channel 3']);
  });

  it('a channel held back by its pace does not hold back another channel', async () => {
    // A pace far longer than the test: if the wait were shared, the other channel's post would never come.
    const ob = makeOutbox({ paceMs: 60_000 });
    ob.start();
    await post(ob, 'a1', 'first', CH);
    await post(ob, 'a2', 'waits for the pace', CH);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === CH && c.status !== undefined, 3000);
    // Only now, with the first channel inside its pause, does the other channel get something to post.
    await post(ob, 'b1', 'other channel', CH2);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === CH2 && c.status !== undefined, 3000);
    expect(topLevel(CH2).map((m) => m.text)).toEqual(['other channel']);
    expect(topLevel(CH).map((m) => m.text)).toEqual(['first']);
    expect(store.all<OutboxEntry>(COLLECTIONS.entries).find((e) => e.ref === 'a2')!.state).toBe('pending');
  });

  it('honours 429 Retry-After and posts once', async () => {
    const ob = makeOutbox();
    fake.failNext('chat.postMessage', { retryAfter: 1 });
    await post(ob, 'a', 'rate limited');
    ob.start();
    await ob.drain();
    const calls = fake.calls('chat.postMessage');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.status).toBe(429);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
    expect(topLevel()).toHaveLength(1);
  });

  it('retries 500s and still shows one message', async () => {
    const ob = makeOutbox();
    fake.failNext('chat.postMessage', { status: 500, times: 2 });
    await post(ob, 'a', 'after 500s');
    ob.start();
    await ob.drain();
    expect(fake.calls('chat.postMessage').length).toBeGreaterThanOrEqual(3);
    expect(topLevel().map((m) => m.text)).toEqual(['after 500s']);
  });

  it('a lost response (timeout after Slack posted) never yields a second message: the earlier post is adopted', async () => {
    // Slack holds the answer past our timeout, then posts anyway; the lookup waits out that window.
    const ob = makeOutbox({ unknownOutcomeDelayMs: 1_500 }, 100);
    fake.failNext('chat.postMessage', { delayMs: 250 });
    await post(ob, 'a', 'slow slack');
    ob.start();
    await ob.drain();
    await new Promise((r) => setTimeout(r, 100)); // anything late would show up by now
    expect(topLevel().map((m) => m.text)).toEqual(['slow slack']);
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    expect(fake.calls('conversations.history').some((c) => c.args.include_all_metadata === 'true')).toBe(true);
    const e = store.all<OutboxEntry>(COLLECTIONS.entries)[0]!;
    expect(e.result).toMatchObject({ adopted: true, ts: topLevel()[0]!.ts });
  });

  it('onPosted: told once per keyed post, after its ts is recorded (adopted ones too), never for edits', async () => {
    const ob = makeOutbox({ unknownOutcomeDelayMs: 1_500 }, 100);
    const told: Array<{ key: string; ts: string | undefined }> = [];
    ob.onPosted((key) => {
      told.push({ key, ts: ob.message(key)?.ts });
    });
    ob.onPosted(() => {
      throw new Error('a failing listener does not stop the outbox');
    });
    fake.failNext('chat.postMessage', { delayMs: 250 }); // lost, then adopted by the lookup
    await post(ob, 'a', 'slow slack');
    await post(ob, 'b', 'quick');
    ob.start();
    await ob.drain();
    await change(ob, 'a', 'slow slack, edited');
    await ob.drain();
    const ts = (text: string) => topLevel().find((m) => m.text === text)?.ts;
    expect(told).toEqual([
      { key: 'item:a', ts: ts('slow slack, edited') },
      { key: 'item:b', ts: ts('quick') },
    ]);
  });

  it('delete_file: retried while Slack fails or refuses, done once deleted or once Slack no longer has the file', async () => {
    const ob = makeOutbox();
    fake.failNext('files.delete', { status: 500, times: 2 });
    // A refusal waiting does not cure is still no reason to leave the file (it may hold a secret).
    fake.failNext('files.delete', { error: 'cant_delete_file' });
    await store.commit((tx) => {
      ob.enqueue(tx, { op: 'delete_file', renderer: 'none', ref: 'F0GONE0001' });
    });
    ob.start();
    await ob.drain();
    const calls = fake.calls('files.delete');
    expect(calls.map((c) => c.args.file)).toEqual(['F0GONE0001', 'F0GONE0001', 'F0GONE0001', 'F0GONE0001']);
    const e = store.all<OutboxEntry>(COLLECTIONS.entries).find((x) => x.op === 'delete_file')!;
    expect(e).toMatchObject({ state: 'done', result: { skipped: true } });
    // Messages in a channel never wait behind a file's deletion: it has a lane of its own.
    expect(e.lane).toBe('files');
  });

  it("an edit queued while a post's outcome was unknown still reaches Slack after the post is adopted", async () => {
    // The post lands (late) with what was true then; the edit made meanwhile must not be
    // counted as drawn by it: the adopted message shows the first attempt's render.
    const ob = makeOutbox({ unknownOutcomeDelayMs: 1_500 }, 100);
    fake.failNext('chat.postMessage', { delayMs: 250 });
    await post(ob, 'a', 'PENDING');
    ob.start();
    await fake.waitFor('chat.postMessage');
    await change(ob, 'a', 'CONFIRMED');
    await ob.drain();
    await new Promise((r) => setTimeout(r, 100)); // anything late would show up by now
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    expect(topLevel().map((m) => m.text)).toEqual(['CONFIRMED']);
    expect(fake.calls('chat.update')).toHaveLength(1);
    const entries = store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.find((e) => e.op === 'post')!.result).toMatchObject({ adopted: true });
    expect(entries.find((e) => e.op === 'update')!.result).not.toHaveProperty('collapsedInto');
  });

  it('a timeout where Slack did NOT post leads to exactly one post after the lookup', async () => {
    const ob = makeOutbox({ unknownOutcomeDelayMs: 1_500 }, 100);
    fake.failNext('chat.postMessage', { delayMs: 250, status: 500 });
    await post(ob, 'a', 'not posted the first time');
    ob.start();
    await ob.drain();
    await new Promise((r) => setTimeout(r, 300));
    expect(topLevel().map((m) => m.text)).toEqual(['not posted the first time']);
    expect(fake.calls('conversations.history').length).toBeGreaterThanOrEqual(1);
  });

  it('a failed duplicate check (history answers 429) never lifts the doubt: the earlier post is adopted, not repeated', async () => {
    const ob = makeOutbox({ unknownOutcomeDelayMs: 1_500 }, 100);
    fake.failNext('chat.postMessage', { delayMs: 250 }); // lands, but after we gave up waiting
    fake.failNext('conversations.history', { retryAfter: 0 });
    await post(ob, 'a', 'slow slack, busy history');
    ob.start();
    await ob.drain();
    await new Promise((r) => setTimeout(r, 100)); // anything late would show up by now
    expect(topLevel().map((m) => m.text)).toEqual(['slow slack, busy history']);
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    const lookups = fake.calls('conversations.history');
    expect(lookups[0]!.status).toBe(429);
    expect(lookups.length).toBeGreaterThanOrEqual(2);
    expect(store.all<OutboxEntry>(COLLECTIONS.entries)[0]!.result).toMatchObject({
      adopted: true,
      ts: topLevel()[0]!.ts,
    });
  });

  it('history unreadable (missing_scope): waits instead of posting blind, and adopts once it can look', async () => {
    const ob = makeOutbox({ unknownOutcomeDelayMs: 60 }, 100);
    fake.failNext('chat.postMessage', { delayMs: 150 });
    fake.failNext('conversations.history', { error: 'missing_scope', times: 3 });
    await post(ob, 'a', 'no history scope yet');
    ob.start();
    await ob.drain();
    await new Promise((r) => setTimeout(r, 100));
    expect(topLevel().map((m) => m.text)).toEqual(['no history scope yet']);
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    expect(fake.calls('conversations.history').length).toBeGreaterThanOrEqual(4);
    expect(store.all<OutboxEntry>(COLLECTIONS.entries)[0]!.result).toMatchObject({ adopted: true });
  });

  it('keeps looking back to the FIRST doubtful attempt, however long the retries go on', async () => {
    // A second: the fake Slack's ts has whole seconds (and a sequence number) only.
    const lookbackMs = 1000;
    let skew = 0;
    const ob = makeOutbox({ unknownOutcomeDelayMs: 20, lookbackMs, now: () => Date.now() + skew }, 100);
    // The first post lands late (after our timeout and after the first lookups); the retries
    // meanwhile get 503s (outcome unknown, nothing posted), so every attempt stays doubtful.
    fake.failNext('chat.postMessage', { delayMs: 400 });
    fake.failNext('chat.postMessage', { status: 503, times: 40 });
    await post(ob, 'a', 'first attempt lands late');
    ob.start();
    await fake.waitFor('chat.postMessage');
    // Our clock moves ten windows on, as if the retries had gone on that long: every later
    // attempt is far outside the window measured from it; the first one is not.
    skew = 10 * lookbackMs;
    await ob.drain();
    await new Promise((r) => setTimeout(r, 100));
    expect(topLevel().map((m) => m.text)).toEqual(['first attempt lands late']);
    expect(fake.calls('chat.postMessage').length).toBeGreaterThanOrEqual(3);
    const e = store.all<OutboxEntry>(COLLECTIONS.entries)[0]!;
    expect(e.result).toMatchObject({ adopted: true, ts: topLevel()[0]!.ts });
    expect(e.sentAt! - e.firstUncertainAt!).toBeGreaterThan(lookbackMs);
  });

  it('a post Slack refused outright (ok:false) proves nothing was sent: the retry posts without a lookup', async () => {
    const ob = makeOutbox();
    fake.failNext('chat.postMessage', { error: 'ratelimited' });
    await post(ob, 'a', 'refused once');
    ob.start();
    await ob.drain();
    expect(topLevel().map((m) => m.text)).toEqual(['refused once']);
    expect(fake.calls('chat.postMessage')).toHaveLength(2);
    expect(fake.calls('conversations.history')).toHaveLength(0);
  });

  it('parks non-retryable errors and does not block the channel', async () => {
    const ob = makeOutbox();
    fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    await post(ob, 'a', 'lost channel');
    await post(ob, 'b', 'next one');
    await store.commit((tx) =>
      ob.enqueue(tx, { op: 'update', renderer: testRenderer('item'), ref: 'a', key: 'item:a' }),
    );
    ob.start();
    await ob.drain();
    expect(topLevel().map((m) => m.text)).toEqual(['next one']);
    const entries = store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.filter((e) => e.state === 'failed').map((e) => e.lastError)).toEqual([
      'channel_not_found',
      'parent_message_failed',
    ]);
  });

  it('folds a burst into one summary with the details in its thread, and later edits reach the details', async () => {
    const ob = makeOutbox({ burstThreshold: 3 });
    for (let i = 1; i <= 6; i++) await post(ob, `d${i}`, `deposit ${i}`, CH, true);
    await post(ob, 'other', 'other channel', CH2, true);
    ob.start();
    await ob.drain();
    const top = topLevel();
    expect(top).toHaveLength(1);
    expect(top[0]!.text).toBe('6 deposits in the last minute. Details in the thread.');
    expect(fake.thread(CH, top[0]!.ts).map((m) => m.text)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `deposit ${i}`));
    expect(topLevel(CH2).map((m) => m.text)).toEqual(['other channel']);

    await change(ob, 'd3', 'deposit 3 confirmed');
    await store.commit((tx) =>
      ob.enqueue(tx, { op: 'reply', renderer: testRenderer('line'), ref: 'status line', key: 'item:d3' }),
    );
    await ob.drain();
    const thread = fake.thread(CH, top[0]!.ts);
    expect(thread.map((m) => m.text)).toContain('deposit 3 confirmed');
    expect(thread.map((m) => m.text)).toContain('status line');
    expect(topLevel()).toHaveLength(1);
  });

  it('Slack down for a long time, across a restart: nothing lost, order kept, no doubles', async () => {
    let ob = makeOutbox();
    fake.failNext('chat.postMessage', { status: 503, times: 1000 });
    ob.start();
    for (let i = 1; i <= 5; i++) await post(ob, `m${i}`, `alert ${i}`);
    await new Promise((r) => setTimeout(r, 150));
    expect(topLevel()).toHaveLength(0);
    expect(fake.calls('chat.postMessage').length).toBeGreaterThan(1);

    // The process stops while Slack is still down; a new one takes over the same data.
    await ob.stop();
    await store.close();
    store = await openStore({ dir, logger });
    ob = makeOutbox();
    ob.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(topLevel()).toHaveLength(0);

    fake.reset(); // Slack is back
    await ob.drain();
    expect(topLevel().map((m) => m.text)).toEqual([1, 2, 3, 4, 5].map((i) => `alert ${i}`));
    const backoffCapped = store.all<OutboxEntry>(COLLECTIONS.entries).every((e) => e.state === 'done');
    expect(backoffCapped).toBe(true);
  });

  it('acts only on committed entries: a rolled-back enqueue is never sent', async () => {
    const ob = makeOutbox();
    ob.start();
    await expect(
      store.commit((tx) => {
        ob.enqueue(tx, { op: 'post', renderer: testRenderer('line'), ref: 'ghost', channel: CH, key: 'ghost' });
        throw new Error('domain check failed');
      }),
    ).rejects.toThrow('domain check failed');
    await post(ob, 'real', 'real one');
    await ob.drain();
    expect(topLevel().map((m) => m.text)).toEqual(['real one']);
  });
});
