/**
 * Issue 20, point 3: no webhook body up to the size limit makes any request wait. Bodies are
 * posted through the real route of the whole app (in this process), their alerts rendered and
 * sent to the fake Slack, and /healthz asked after each; the event loop's delay is measured
 * throughout by a timer probe (loop-probe.ts: the CPU time a gap took, so a machine shared with
 * other work does not count as the code's delay) and must stay under 100 ms. Numbers out of
 * bounds are refused at the edge (400); everything else is parsed, stored, formatted and
 * compared in time linear in its size.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES, MAX_WEBHOOK_VALUES } from '../../src/alerts/receiver.js';
import { depositSample } from '../alerts/setup.js';
import { startTestApp, type TestApp } from '../helpers/treasury-app.js';
import { hostileString, http as httpRuns } from './config.js';
import { startLoopProbe } from './loop-probe.js';

const SECRET = 'wh_loop_secret_0123456789abcdef';
const LIMIT_MS = 100;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_SECRET: SECRET }, sandbox: { seed: true } });
});
afterAll(async () => {
  await t?.stop();
});

/** Room left in a body for one big piece, so every body stays within the route's size limit. */
const ROOM = DEFAULT_MAX_BODY_BYTES - 2_000;
const size = fc.integer({ min: 1, max: ROOM });
const third = fc.integer({ min: 1, max: Math.floor(ROOM / 3) });

/** A number's text, within or far beyond the bounds, as long as the body allows. */
const numberText = fc.oneof(
  fc.integer({ min: 41, max: 250_000 }).map((n) => `1e${n}`),
  fc.integer({ min: 41, max: 250_000 }).map((n) => `1e-${n}`),
  size.map((n) => '9'.repeat(n)),
  size.map((n) => `0.${'0'.repeat(n)}1`),
  size.map((n) => `1${'0'.repeat(n)}`),
  size.map((n) => `-${'1'.repeat(Math.min(n, 40))}.${'0'.repeat(n)}`),
  fc.constantFrom('150.25', '1e40', '1e-40', '9'.repeat(40), `0.${'0'.repeat(38)}1`),
);

/** A long hostile text: what a Status, network, e-mail or reference may say. */
const longText = fc.oneof(
  hostileString,
  fc
    .tuple(fc.constantFrom('_', '*', '<!channel>', '\n', 'a', '0', '~`'), third)
    .map(([s, n]) => s.repeat(Math.floor(n / s.length / 2))),
);

const body: fc.Arbitrary<string> = fc.oneof(
  numberText.map((n) => depositSample({ amount: n })),
  numberText.map((n) => depositSample({ amount: JSON.stringify(n) })),
  numberText.map((n) => depositSample({ extra: { Fee: 'x' } }).replace('"Charge":0.5', `"Charge":"${n}"`)),
  numberText.map((n) => depositSample({ extra: { Extra: 'x' } }).replace('"x"', n)),
  fc
    .record({ status: longText, amount: numberText, email: longText })
    .filter((o) => JSON.stringify(o).length <= ROOM)
    .map((o) =>
      depositSample({ status: o.status, amount: JSON.stringify(o.amount) }).replace(
        'client@example.com',
        JSON.stringify(o.email).slice(1, -1),
      ),
    ),
  // Many values: within the route's limit (MAX_WEBHOOK_VALUES) and far beyond it.
  fc
    .oneof(fc.integer({ min: 1, max: MAX_WEBHOOK_VALUES - 10 }), fc.integer({ min: 1, max: 60_000 }))
    .chain((n) => fc.constantFrom('1.5', '"a"', 'null', '{}', `"${'x'.repeat(60)}"`).map((v) => ({ n, v })))
    .map(({ n, v }) => `{"Data":{"Extra":[${Array(n).fill(v).join(',')}]}}`)
    .filter((b) => b.length <= DEFAULT_MAX_BODY_BYTES),
);

describe('the event loop under any webhook body', () => {
  it(`no body up to the size limit delays the loop ${LIMIT_MS} ms or more`, async () => {
    const url = `${t.app.url}/webhooks/wallet/${SECRET}`;
    const post = async (b: string) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: b });
      await res.text();
      return res.status;
    };
    // Warm up (first compilation of every path) before measuring.
    await post(depositSample({ hash: `0x${'c'.repeat(64)}` }));
    await t.app.deps.outbox.drain();

    const probe = startLoopProbe();
    try {
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          expect(Buffer.byteLength(b)).toBeLessThanOrEqual(DEFAULT_MAX_BODY_BYTES);
          probe.reset();
          const status = await post(b);
          expect([200, 400]).toContain(status);
          await t.app.deps.outbox.drain();
          expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
          // One more turn of the loop, so a delay in the last callback is recorded.
          await new Promise((r) => setTimeout(r, 10));
          const { held, wall } = probe.max();
          expect(held, `event loop held for a body of ${b.length} bytes (wall ${Math.round(wall)} ms)`).toBeLessThan(
            LIMIT_MS,
          );
        }),
        httpRuns(60),
      );
    } finally {
      probe.stop();
    }
  }, 180_000);
});
