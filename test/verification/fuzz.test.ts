/**
 * Any query of any shape on the verify route gets an answer: never a 5xx, never a crash, and
 * never `isVerified: true` when this app is sending nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/treasury-app.js';
import { hostileString, http as httpRuns } from '../fuzz/config.js';

const SECRET = 'verify-fuzz-secret-0a1b2c3d4e';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_SECRET: SECRET } });
});
afterAll(async () => {
  await t?.stop();
});

describe('GET /webhooks/wallet/<secret>/verify, any query', () => {
  it('answers 200 not verified (or 404 for a wrong secret), and the app stays up', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Within what an HTTP request line can carry (a longer one is refused by Node before any route).
        fc.oneof(
          fc.string({ maxLength: 300 }),
          hostileString.filter((s) => s.length < 2000),
        ),
        fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 50 })), { maxLength: 4 }),
        fc.boolean(),
        async (reference, extra, rightSecret) => {
          const q = new URLSearchParams([['reference', reference], ...extra]);
          const secret = rightSecret ? SECRET : `${SECRET}-not`;
          const res = await fetch(`${t.app.url}/webhooks/wallet/${secret}/verify?${q}`);
          const body = (await res.json()) as Record<string, unknown>;
          if (!rightSecret) return void expect(res.status).toBe(404);
          expect(res.status).toBe(200);
          expect(body).toEqual({ isVerified: false, checksum: '' });
        },
      ),
      httpRuns(60),
    );
    expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
  }, 120_000);
});
