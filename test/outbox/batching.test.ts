/**
 * The outbox's batching, priorities and edit pacing, against the recording fake Slack with
 * rate limits on. A generic batch renderer ("n items" + one line per item) stands in for the
 * alerts' one, with a capacity the tests choose.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import {
  COLLECTIONS,
  createOutbox,
  type Outbox,
  type OutboxEntry,
  type OutboxOptions,
  type OutboxPriority,
} from '../../src/outbox/index.js';
import { collection, openStore, type Store } from '../../src/store/index.js';
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../helpers/fake-slack.js';
import { slackRateLimits, type SlackRateLimiter } from '../helpers/slack-rate-limits.js';
import { testRenderer } from '../helpers/renderers.js';

const logger = createLogger({ level: 'silent' });
const CH = 'C0BATCH001';
const ITEMS = collection<{ text: string }>('items');

let dir: string;
let store: Store;
let fake: FakeSlack;
let limits: SlackRateLimiter;
let outbox: Outbox | undefined;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'outbox-batch-'));
  store = await openStore({ dir, logger });
  limits = slackRateLimits({ timeScale: 10 });
  fake = await startFakeSlack({ gate: limits.gate });
});

afterEach(async () => {
  await outbox?.stop();
  outbox = undefined;
  await store.close().catch(() => undefined);
  await fake.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function makeOutbox(capacity: number, o: Partial<OutboxOptions> = {}): Outbox {
  const client = new WebClient('xoxb-batch-test', {
    slackApiUrl: fake.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 2000,
  });
  const ob = createOutbox({
    store,
    client,
    logger,
    paceMs: 120,
    updatePaceMs: 150,
    baseBackoffMs: 20,
    maxBackoffMs: 200,
    unknownOutcomeDelayMs: 50,
    ...o,
  });
  const text = (ref: string) => store.get(ITEMS, ref)?.text ?? '?';
  ob.registerRenderer(testRenderer('item'), (ref) => ({ text: text(ref) }));
  ob.registerRenderer(testRenderer('line'), (ref) => ({ text: ref }));
  ob.registerBatchRenderer(testRenderer('items'), {
    render: (refs) => ({
      text: `${refs.length} items`,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: refs.map(text).join('\n') } }],
    }),
    fits: (refs) => Math.min(refs.length, capacity),
  });
  outbox = ob;
  return ob;
}

async function item(ob: Outbox, id: string, text: string, priority?: OutboxPriority): Promise<void> {
  await store.commit((tx) => {
    tx.put(ITEMS, id, { text });
    ob.enqueue(tx, {
      op: 'post',
      renderer: testRenderer('item'),
      ref: id,
      key: `item:${id}`,
      channel: CH,
      batch: { renderer: testRenderer('items'), group: 'g' },
      ...(priority ? { priority } : {}),
    });
  });
}

async function edit(ob: Outbox, id: string, text: string): Promise<void> {
  await store.commit((tx) => {
    tx.put(ITEMS, id, { text });
    ob.enqueue(tx, { op: 'update', renderer: testRenderer('item'), ref: id, key: `item:${id}`, priority: 'edit' });
  });
}

const top = () => fake.channel(CH).filter((m) => !m.thread_ts);
const linesOf = (m: FakeMessage) =>
  ((m.blocks?.[0] as { text?: { text: string } } | undefined)?.text?.text ?? m.text ?? '').split('\n');

describe('outbox batching', () => {
  it('splits what waits into as many messages as needed, each as full as the renderer allows, in order', async () => {
    const ob = makeOutbox(5);
    for (let i = 1; i <= 12; i++) await item(ob, `i${i}`, `item ${i}`);
    ob.start();
    await ob.drain();
    const msgs = top();
    expect(msgs.map((m) => m.text)).toEqual(['5 items', '5 items', '2 items']);
    expect(msgs.flatMap(linesOf)).toEqual(Array.from({ length: 12 }, (_, i) => `item ${i + 1}`));
    expect(limits.limited).toEqual({});
    // The members are done, pointing at their batch; the batch entries carry the posts.
    const entries = store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.filter((e) => e.result?.batchedInto)).toHaveLength(12);
    expect(entries.filter((e) => e.id.endsWith('_batch')).map((e) => e.state)).toEqual(['done', 'done', 'done']);
  });

  it('edits of lines of one batch message coalesce into one chat.update; edits of two messages are two, paced apart', async () => {
    const ob = makeOutbox(3);
    for (let i = 1; i <= 6; i++) await item(ob, `i${i}`, `item ${i}`);
    ob.start();
    await ob.drain();
    expect(top()).toHaveLength(2);
    await ob.stop();
    for (let i = 1; i <= 6; i++) await edit(ob, `i${i}`, `item ${i} done`);
    ob.start();
    await ob.drain();
    const updates = fake.calls('chat.update');
    expect(updates.map((u) => u.args.ts).sort()).toEqual(
      top()
        .map((m) => m.ts)
        .sort(),
    );
    expect(updates[1]!.at - updates[0]!.at).toBeGreaterThanOrEqual(145);
    expect(top().flatMap(linesOf)).toEqual(Array.from({ length: 6 }, (_, i) => `item ${i + 1} done`));
  });

  it('a new live post jumps a backlog of lower priority: it goes out at the next slot', async () => {
    const ob = makeOutbox(2);
    for (let i = 1; i <= 20; i++) await item(ob, `r${i}`, `finding ${i}`, 'reconciliation');
    ob.start();
    await fake.waitFor('chat.postMessage', (c) => c.status !== undefined, 3000);
    await item(ob, 'live', 'live one');
    await ob.drain();
    const lines = top().map((m) => linesOf(m)[0]);
    const liveAt = lines.indexOf('live one');
    // One message was posted before the live one was enqueued; at most one more could have been in flight.
    expect(liveAt).toBeGreaterThan(0);
    expect(liveAt).toBeLessThanOrEqual(2);
    expect(top()).toHaveLength(11);
  });

  it('what arrived since the last post goes ahead of the live backlog that did not fit then; the backlog keeps its order', async () => {
    const ob = makeOutbox(2);
    for (let i = 1; i <= 20; i++) await item(ob, `b${i}`, `backlog ${i}`, 'live');
    ob.start();
    await fake.waitFor('chat.postMessage', (c) => c.status !== undefined, 3000);
    await item(ob, 'new', 'new one', 'live');
    await ob.drain();
    const firsts = top().map((m) => linesOf(m)[0]);
    const at = firsts.indexOf('new one');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(2);
    const backlog = top()
      .flatMap(linesOf)
      .filter((l) => l.startsWith('backlog'));
    expect(backlog).toEqual(Array.from({ length: 20 }, (_, i) => `backlog ${i + 1}`));
  });

  it('a post that keeps failing holds back only itself and the backlog behind it: a new live post goes at the next slot', async () => {
    // A retry a minute away (a long backoff) on our own clock, which the test moves on at the end.
    let skew = 0;
    const ob = makeOutbox(10, { baseBackoffMs: 60_000, maxBackoffMs: 60_000, now: () => Date.now() + skew });
    const plain = (id: string) =>
      store.commit((tx) => {
        tx.put(ITEMS, id, { text: id });
        ob.enqueue(tx, {
          op: 'post',
          renderer: testRenderer('item'),
          ref: id,
          key: `item:${id}`,
          channel: CH,
          priority: 'live',
        });
      });
    fake.failNext('chat.postMessage', { status: 500 }); // this payload only: the next call succeeds
    await plain('head');
    await plain('behind');
    ob.start();
    await fake.waitFor('chat.postMessage', (c) => c.status === 500);
    await plain('new');
    await fake.waitFor('chat.postMessage', (c) => c.args.text === 'new' && c.status === 200);
    // Posted while the failing head still waits for its retry and the backlog waits behind it.
    expect(top().map((m) => m.text)).toEqual(['new']);
    const entries = store.all<OutboxEntry>(COLLECTIONS.entries);
    expect(entries.find((e) => e.ref === 'head')).toMatchObject({ state: 'pending', attempts: 1 });
    expect(entries.find((e) => e.ref === 'behind')).toMatchObject({ state: 'pending', attempts: 0 });

    skew = 120_000; // the head's retry is due: it goes, then what waited behind it, in order
    ob.kick();
    await ob.drain();
    expect(top().map((m) => m.text)).toEqual(['new', 'head', 'behind']);
    expect(fake.calls('chat.postMessage').filter((c) => c.args.text === 'head')).toHaveLength(2);
  });

  it('thread details are not starved by a stream of live posts: every 5th slot goes to the oldest waiting post', async () => {
    const ob = makeOutbox(10);
    const plain = (id: string) =>
      store.commit((tx) => {
        tx.put(ITEMS, id, { text: id });
        ob.enqueue(tx, {
          op: 'post',
          renderer: testRenderer('item'),
          ref: id,
          key: `item:${id}`,
          channel: CH,
          priority: 'live',
        });
      });
    await plain('parent');
    ob.start();
    await ob.drain();
    await ob.stop();
    await store.commit((tx) => {
      ob.enqueue(tx, {
        op: 'reply',
        renderer: testRenderer('line'),
        ref: 'detail 1',
        key: 'item:parent',
        priority: 'detail',
      });
      ob.enqueue(tx, {
        op: 'reply',
        renderer: testRenderer('line'),
        ref: 'detail 2',
        key: 'item:parent',
        priority: 'detail',
      });
    });
    for (let i = 1; i <= 12; i++) await plain(`live ${i}`);
    ob.start();
    await ob.drain();
    const sent = fake
      .calls('chat.postMessage')
      .slice(1)
      .map((c) => c.args.text);
    expect(sent).toHaveLength(14);
    // Four live posts, then the oldest detail; four more, then the next; live ones in order.
    expect([sent.indexOf('detail 1'), sent.indexOf('detail 2')]).toEqual([4, 9]);
    expect(sent.filter((t) => String(t).startsWith('live'))).toEqual(
      Array.from({ length: 12 }, (_, i) => `live ${i + 1}`),
    );
    expect(fake.thread(CH, top()[0]!.ts).map((m) => m.text)).toEqual(['detail 1', 'detail 2']);
  });

  it('a reply to a line of a batch message is skipped (its line shows it); an ifBatched post goes out only for a batched key', async () => {
    const ob = makeOutbox(10);
    for (let i = 1; i <= 3; i++) await item(ob, `i${i}`, `item ${i}`);
    ob.start();
    await ob.drain();
    await store.commit((tx) => {
      tx.put(ITEMS, 'solo', { text: 'solo' });
      ob.enqueue(tx, {
        op: 'post',
        renderer: testRenderer('item'),
        ref: 'solo',
        key: 'item:solo',
        channel: CH,
        batch: { renderer: testRenderer('items'), group: 'g' },
      });
    });
    await ob.drain();
    await store.commit((tx) => {
      ob.enqueue(tx, {
        op: 'reply',
        renderer: testRenderer('line'),
        ref: 'detail of a line',
        key: 'item:i2',
        priority: 'detail',
      });
      ob.enqueue(tx, {
        op: 'reply',
        renderer: testRenderer('line'),
        ref: 'detail of solo',
        key: 'item:solo',
        priority: 'detail',
      });
      ob.enqueue(tx, {
        op: 'post',
        renderer: testRenderer('line'),
        ref: 'i2 on its own',
        key: 'item:i2:own',
        channel: CH,
        ifBatched: 'item:i2',
      });
      ob.enqueue(tx, {
        op: 'post',
        renderer: testRenderer('line'),
        ref: 'solo on its own',
        key: 'item:solo:own',
        channel: CH,
        ifBatched: 'item:solo',
      });
    });
    await ob.drain();
    expect(top().map((m) => m.text)).toEqual(['3 items', 'solo', 'i2 on its own']);
    expect(fake.thread(CH, top()[1]!.ts).map((m) => m.text)).toEqual(['detail of solo']);
    expect(fake.thread(CH, top()[0]!.ts)).toEqual([]);
    expect(ob.shownIn('item:i2')?.ts).toBe(top()[0]!.ts);
  });

  it('a 429 on chat.update holds back every edit until Retry-After, and the edit still lands once', async () => {
    const ob = makeOutbox(10);
    await item(ob, 'a', 'a');
    ob.start();
    await ob.drain();
    fake.failNext('chat.update', { retryAfter: 1 });
    await edit(ob, 'a', 'a edited');
    await ob.drain();
    const updates = fake.calls('chat.update');
    expect(updates).toHaveLength(2);
    expect(updates[1]!.at - updates[0]!.at).toBeGreaterThanOrEqual(950);
    expect(top().map((m) => m.text)).toEqual(['a edited']);
  });
});
