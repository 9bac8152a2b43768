/**
 * Acks first (src/slack/acks-first.ts): a listener's work after its ack waits until every
 * request that has arrived is acknowledged, but never longer than the cap. The queue is a
 * pure core with fast tests; the app is then driven through its real receiver: a burst still
 * gets every ack and every reply, and a request that never finishes arriving (counted as
 * unanswered forever) does not hold anyone's reply back past the cap.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ackQueue, DUE_PER_TURN } from '../../src/slack/acks-first.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

/** A few turns of the event loop, so anything that was going to resume on its own has. */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

function tracked(p: Promise<void>): { done: () => boolean; promise: Promise<void> } {
  let done = false;
  const promise = p.then(() => {
    done = true;
  });
  return { done: () => done, promise };
}

describe('ackQueue', () => {
  it('resumes parked work only once every arrived request is answered', async () => {
    const q = ackQueue(60_000);
    const first = q.arrived();
    const second = q.arrived();
    const work = tracked(q.afterAcks());
    await turns();
    expect(work.done()).toBe(false);
    first();
    await turns();
    expect(work.done()).toBe(false);
    expect(q.unanswered).toBe(1);
    second();
    await work.promise;
    expect(q.unanswered).toBe(0);
  });

  it('counts a request answered twice (finish, then close) once', async () => {
    const q = ackQueue(60_000);
    const a = q.arrived();
    q.arrived();
    a();
    a();
    expect(q.unanswered).toBe(1);
    const work = tracked(q.afterAcks());
    await turns();
    expect(work.done()).toBe(false);
  });

  it('resumes at once (next turn) when nothing waits for an ack', async () => {
    const q = ackQueue(60_000);
    q.arrived()();
    await q.afterAcks();
    expect(q.unanswered).toBe(0);
  });

  it('resumes parked work one per turn, oldest first, and stops again when a request arrives in between', async () => {
    const q = ackQueue(60_000);
    const order: number[] = [];
    const works = [0, 1, 2, 3].map((i) => tracked(q.afterAcks().then(() => void order.push(i))));
    // Nothing waits for an ack: the oldest resumes first, alone; a request arrives before the next one's turn.
    const answer = await works[0]!.promise.then(() => q.arrived());
    expect(order).toEqual([0]);
    // The rest wait for its answer.
    await turns();
    expect(order).toEqual([0]);
    answer();
    await Promise.all(works.map((w) => w.promise));
    expect(order).toEqual([0, 1, 2, 3]);
  });

  // While requests are arriving (two within the window), a gap in which every one is answered is not the end of the burst.
  it('waits for a quiet spell after the last arrival while requests are arriving, but never past the cap', async () => {
    const quiet = ackQueue(60_000, 60_000);
    quiet.arrived()();
    quiet.arrived()();
    const work = tracked(quiet.afterAcks());
    await turns();
    expect(quiet.unanswered).toBe(0);
    expect(work.done()).toBe(false);

    const capped = ackQueue(10, 60_000);
    capped.arrived()();
    capped.arrived()();
    await capped.afterAcks();
    expect(capped.unanswered).toBe(0);
  });

  it("an idle app: a lone request's follow-up starts on the next turn, without waiting for the quiet window", async () => {
    // A window and a cap of a minute: only "no wait" can resolve this within the test's timeout.
    const q = ackQueue(60_000, 60_000);
    q.arrived()();
    const work = tracked(q.afterAcks());
    await turns(2);
    expect(work.done()).toBe(true);
    // Later, after a quiet spell of its own (here: a fresh queue), the next lone one does not wait either.
    const later = ackQueue(60_000, 5);
    later.arrived()();
    await new Promise((r) => setTimeout(r, 20));
    later.arrived()();
    const next = tracked(later.afterAcks());
    await turns(2);
    expect(next.done()).toBe(true);
  });

  it('the quiet window ends on its own: work parked in a burst resumes once requests stop, oldest first', async () => {
    const q = ackQueue(60_000, 30);
    const order: number[] = [];
    q.arrived()();
    q.arrived()();
    const works = [0, 1, 2].map((i) => q.afterAcks().then(() => void order.push(i)));
    await turns();
    expect(order).toEqual([]);
    await Promise.all(works);
    expect(order).toEqual([0, 1, 2]);
  });

  it('parked work past its cap resumes a few per turn, oldest first, even while a request waits for its ack', async () => {
    const q = ackQueue(10);
    q.arrived(); // never answered
    const n = DUE_PER_TURN * 2 + 3;
    const resumed: number[] = [];
    const works = Array.from({ length: n }, (_, i) => q.afterAcks().then(() => void resumed.push(i)));
    await works[0];
    // The rest of the first turn's batch has resumed in the same turn (its microtasks); nothing more.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(resumed).toEqual(Array.from({ length: DUE_PER_TURN }, (_, i) => i));
    await Promise.all(works);
    expect(resumed).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(q.unanswered).toBe(1);
  });

  it('resumes after the cap even if a request is never answered: a stream of requests cannot starve the work', async () => {
    const q = ackQueue(10);
    q.arrived();
    await Promise.all([q.afterAcks(), q.afterAcks()]);
    expect(q.unanswered).toBe(1);
  });
});

describe('acks first, through the real receiver', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a burst of 40 /tx commands: every one is acknowledged 200 and gets its page', async () => {
    const sent = await Promise.all(Array.from({ length: 40 }, () => t.command('/tx', 'size=5', USERS.viewer)));
    for (const { res } of sent) expect(res.status).toBe(200);
    for (const { responseUrl } of sent) {
      const [reply] = await t.replies(responseUrl, 1, 15_000);
      expect(String(reply!.text)).toMatch(/^Transactions: page 1 of /);
    }
  });

  it('a request that never finishes arriving does not hold replies back (the cap lets them through)', async () => {
    const { port } = new URL(t.app.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    try {
      // Headers and part of a body: the app has a request it cannot answer yet.
      socket.write(
        'POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ncommand=%2Ftx',
      );
      await turns();
      const { res, responseUrl } = await t.command('/tx', 'size=5', USERS.viewer);
      expect(res.status).toBe(200);
      const [reply] = await t.replies(responseUrl, 1, 10_000);
      expect(String(reply!.text)).toMatch(/^Transactions: page 1 of /);
    } finally {
      socket.destroy();
    }
  });
});
