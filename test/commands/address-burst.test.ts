/** A burst of /address: every command is acknowledged, answered and sent its QR code, though follow-ups take turns. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('/address in a burst', () => {
  it('30 at once (more than run at a time): all acked, each answered with its address and sent its QR code', async () => {
    const n = 30;
    const sent = await Promise.all(
      Array.from({ length: n }, (_, i) => t.command('/address', `burst${i}@client.example usdt bsc`, USERS.viewer)),
    );
    expect(sent.map((s) => s.res.status)).toEqual(Array(n).fill(200));
    const addresses = await Promise.all(
      sent.map(async ({ responseUrl }, i) => {
        const [reply] = await t.replies(responseUrl, 1, 15_000);
        const text = visibleText(reply!);
        expect(text).toContain(`burst${i}@client.example`);
        return /```(0x[0-9a-f]{40})```/.exec(text)![1]!;
      }),
    );
    expect(new Set(addresses).size).toBe(n);
    const files = await until(
      'every QR upload',
      () => (addresses.every((a) => t.fake.files().some((f) => f.name.includes(a))) ? t.fake.files() : undefined),
      15_000,
    );
    for (const a of addresses)
      expect(
        files
          .find((f) => f.name.includes(a))!
          .content.subarray(1, 4)
          .toString(),
      ).toBe('PNG');
  });
});
