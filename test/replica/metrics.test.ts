/**
 * Every replica is observable from its start: a standby serves /metrics saying `standby`, how it
 * sees the database and the webhook inbox; the same server says `leader` once it takes over.
 * The inbox gauges count the rows a standby took in, and their age grows until a leader drains
 * them. The database gauge falls to 0 when the replica's path to PostgreSQL stops answering
 * (a TCP relay in front of the cluster's socket that the test pauses) and comes back after.
 *
 * The lead is held by the test's own session (the advisory lock the replicas take), so the rows
 * stay in the inbox for as long as the test needs them there.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { depositSample, SECRET, send } from '../alerts/setup.js';
import { pgAvailable, pgSkipReason } from '../helpers/pg.js';
import { eventually, replicaRig } from '../helpers/replicas.js';
import { freePort, startTestApp } from '../helpers/treasury-app.js';

/** `name{labels}` → value, from the Prometheus text format. */
async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** Scrapes until `ok` holds (the drain and the reconnection take a moment). */
async function scrapeUntil(url: string, what: string, ok: (m: Map<string, number>) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await scrape(url);
    if (ok(m)) return m;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A TCP relay to the cluster's unix socket that can be paused: connections stay open, nothing passes. */
async function relay(socketPath: string) {
  let paused = false;
  const pairs: Array<[net.Socket, net.Socket]> = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(socketPath);
    pairs.push([client, upstream]);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    if (paused) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const setPaused = (p: boolean) => {
    paused = p;
    for (const pair of pairs) for (const s of pair) p ? s.pause() : s.resume();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    pause: () => setPaused(true),
    resume: () => setPaused(false),
    close: () => {
      for (const pair of pairs) for (const s of pair) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe.skipIf(!pgAvailable)(`/metrics on every replica${pgSkipReason ? ` (${pgSkipReason})` : ''}`, () => {
  const rig = replicaRig('metrics');
  const { apps, cleanups } = rig;

  it('a standby says standby with the inbox backlog, then leader once it leads', async () => {
    const url = rig.url();
    const fake = rig.fake();
    // A leader first: it migrates the schema, and says leader.
    const aMetrics = await freePort();
    const a = await startTestApp({
      env: { DATABASE_URL: url, WEBHOOK_SECRET: SECRET, METRICS_PORT: String(aMetrics) },
      fake,
    });
    apps.push(a);
    const leading = await scrape(`http://127.0.0.1:${aMetrics}/metrics`);
    expect(leading.get('treasury_replica_role{role="leader"}')).toBe(1);
    expect(leading.get('treasury_replica_role{role="standby"}')).toBe(0);
    expect(leading.get('treasury_database_up')).toBe(1);
    expect(leading.get('treasury_inbox_pending')).toBe(0);
    await a.stop();
    apps.splice(apps.indexOf(a), 1);

    // The test holds the lead, so B stands by, reaching the database through a relay it can pause.
    const lead = await rig.holdTheLead();
    const socketDir = new URL(url).searchParams.get('host')!;
    const db = await relay(`${socketDir}/.s.PGSQL.5432`);
    cleanups.push(() => db.close());
    const dbName = new URL(url).pathname;
    const port = await freePort();
    const bMetrics = await freePort();
    const metricsUrl = `http://127.0.0.1:${bMetrics}/metrics`;
    const bStarting = startTestApp({
      env: {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${db.port}${dbName}`,
        WEBHOOK_SECRET: SECRET,
        PORT: String(port),
        METRICS_PORT: String(bMetrics),
      },
      fake,
    });
    bStarting.then((b) => apps.push(b)).catch(() => {});

    const standing = await eventually(() => scrape(metricsUrl));
    expect(standing.get('treasury_replica_role{role="standby"}')).toBe(1);
    expect(standing.get('treasury_replica_role{role="leader"}')).toBe(0);
    expect(standing.get('treasury_database_up')).toBe(1);
    expect(standing.get('treasury_inbox_pending')).toBe(0);
    expect(standing.get('treasury_inbox_oldest_age_seconds')).toBe(0);

    // Two webhooks taken in by the standby: two rows waiting, the oldest ageing.
    const base = `http://127.0.0.1:${port}`;
    expect((await eventually(() => fetch(`${base}/healthz`))).status).toBe(200);
    for (const hash of [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`]) {
      expect((await send(`${base}/webhooks/wallet/${SECRET}`, depositSample({ hash }))).status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 1_200));
    const backlog = await scrape(metricsUrl);
    expect(backlog.get('treasury_inbox_pending')).toBe(2);
    expect(backlog.get('treasury_inbox_oldest_age_seconds')).toBeGreaterThanOrEqual(1);
    expect(backlog.get('treasury_inbox_oldest_age_seconds')).toBeLessThan(30);
    expect(backlog.get('treasury_inbox_refused')).toBe(0);

    // The path to the database stops answering: the scrape still answers, saying so.
    db.pause();
    const cut = await scrape(metricsUrl);
    expect(cut.get('treasury_database_up')).toBe(0);
    expect(cut.get('treasury_replica_role{role="standby"}')).toBe(1);
    // what it saw last is still waiting (nobody can drain it), and still ageing
    expect(cut.get('treasury_inbox_pending')).toBe(2);
    expect(cut.get('treasury_inbox_oldest_age_seconds')).toBeGreaterThan(
      backlog.get('treasury_inbox_oldest_age_seconds')!,
    );
    db.resume();
    await scrapeUntil(metricsUrl, 'the database reachable again', (m) => m.get('treasury_database_up') === 1);

    // The lead is free: B leads, on the same metrics server, and drains the inbox.
    await lead.release();
    await bStarting;
    const led = await scrape(metricsUrl);
    expect(led.get('treasury_replica_role{role="leader"}')).toBe(1);
    expect(led.get('treasury_replica_role{role="standby"}')).toBe(0);
    const drained = await scrapeUntil(
      metricsUrl,
      'the inbox drained by the new leader',
      (m) => m.get('treasury_inbox_pending') === 0,
    );
    expect(drained.get('treasury_inbox_oldest_age_seconds')).toBe(0);
  }, 90_000);
});
