// The leader's lock session, in a worker thread (src/store/pg/lock.ts starts it). It connects,
// takes (or waits for) the advisory lock, and once told the epoch, confirms it every
// `heartbeatMs`. It lives off the main event loop so that a stall there (a long synchronous
// task, a GC pause) does not leave the session idle: the server ends an idle session after
// SESSION_TIMEOUT_MS and would free the lock, costing a needless failover. A frozen process
// (SIGSTOP, a hung host) freezes this thread too, so the lock is still freed within seconds.
// Plain .mjs so it loads the same under tsx, vitest and the build (like the chart worker).
//
// Shared memory (written here, read by the main thread at any time, even mid-stall):
//   BigInt64 [0]: process.hrtime of the start of the last heartbeat that confirmed the epoch
//   Int32    [2]: 1 once this session is gone (lost, failed or closed): the lease is void
//   BigInt64 [2]: process.hrtime of the main thread's last turn (written there every 250 ms):
//                 a main thread stalled longer than `maxStallMs` is taken for wedged, and the
//                 lead is given up, so a stuck process does not hold it forever
// Messages out: {t:'waiting'} (another replica holds the lock), {t:'locked', pid}, {t:'failed',
// message, code} (before leading), {t:'lost', reason} (after). In: {t:'lead', epoch}, {t:'close'}.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

const { config, key, heartbeatMs, maxStallMs, shared } = workerData;
const beatAt = new BigInt64Array(shared, 0, 1);
const gone = new Int32Array(shared, 8, 1);
const mainTurn = new BigInt64Array(shared, 16, 1);
const maxStallNs = BigInt(maxStallMs) * 1_000_000n;
const client = new pg.Client(config);
let leading = false;
let done = false;
let timer;
let keepAlive;

function finish(message) {
  if (done) return;
  done = true;
  Atomics.store(gone, 0, 1);
  clearInterval(timer);
  clearInterval(keepAlive);
  if (message) parentPort.postMessage(message);
  // Ending the session lets go of the lock at once if it is still held.
  client
    .end()
    .catch(() => {})
    .finally(() => parentPort.close());
}

const failure = (err) =>
  leading
    ? { t: 'lost', reason: `the lock's database session failed: ${err.message}` }
    : { t: 'failed', message: err.message, code: err.code };

client.on('error', (err) => finish(failure(err)));
client.on('end', () => finish(failure(new Error('the database session ended'))));

parentPort.on('message', (m) => {
  if (m.t === 'close') finish();
  else if (m.t === 'lead') beatEvery(m.epoch);
});

function beatEvery(epoch) {
  clearInterval(keepAlive);
  if (done) return;
  let inFlight = false;
  const beat = async () => {
    if (inFlight || done) return;
    inFlight = true;
    const started = process.hrtime.bigint();
    const stalledNs = started - Atomics.load(mainTurn, 0);
    if (stalledNs > maxStallNs) {
      inFlight = false;
      return finish({
        t: 'lost',
        reason: `the event loop has not turned for ${Number(stalledNs / 1_000_000n)} ms: giving up the lead`,
      });
    }
    try {
      // A session whose packets are silently dropped never answers (TCP keepalive does not probe while
      // data is unacknowledged): a beat not answered within the tolerance ends the lead, so the lease
      // going stale is also heard as lost.
      let late;
      const answer = client.query('SELECT epoch FROM replica_leader WHERE id = 1');
      const r = await Promise.race([
        answer,
        new Promise((_, reject) => {
          late = setTimeout(() => reject(new Error(`no answer within ${maxStallMs} ms`)), maxStallMs);
        }),
      ]).finally(() => clearTimeout(late));
      const now = Number(r.rows[0]?.epoch);
      if (now !== epoch)
        return finish({ t: 'lost', reason: `fenced: the epoch is ${now}, this replica held ${epoch}` });
      if (started > Atomics.load(beatAt, 0)) Atomics.store(beatAt, 0, started);
    } catch (err) {
      finish({ t: 'lost', reason: `heartbeat failed: ${err.message}` });
    } finally {
      inFlight = false;
    }
  };
  void beat();
  timer = setInterval(beat, heartbeatMs);
}

try {
  await client.connect();
  const first = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [key]);
  if (!first.rows[0]?.ok) {
    parentPort.postMessage({ t: 'waiting' });
    // A waiting query is not idle: the session timeout does not end it.
    await client.query('SELECT pg_advisory_lock($1)', [key]);
  }
  if (!done) {
    leading = true;
    parentPort.postMessage({ t: 'locked', pid: client.processID });
    // Until the lead is confirmed, the session must not sit idle either: the epoch bump on the write
    // connection may wait up to the write-stall tolerance for a frozen leader's transaction, and the
    // server would end an idle session (and free the lock) long before (found by the chaos tests).
    keepAlive = setInterval(() => {
      if (!done) client.query('SELECT 1').catch((err) => finish(failure(err)));
    }, heartbeatMs);
  }
} catch (err) {
  finish(failure(err));
}
