/**
 * Slack's replay window both ways (issue 20, point 7): a request signed more than 5 minutes
 * in the future is refused (401) like one more than 5 minutes old, through the real receiver.
 * Bolt's own check refuses only the old ones.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { boltLogger } from '../../src/slack/bolt-logger.js';
import { SIGNATURE_WINDOW_SECONDS, SlackHttpReceiver } from '../../src/slack/http-receiver.js';
import { JSON_TYPE, nowSeconds, sendToBolt, staleTimestamp } from '../helpers/slack-requests.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

const help = (timestamp: number) => t.command('/treasury', 'help', USERS.viewer, { send: { timestamp } });

describe('the Slack signature window', () => {
  it('refuses a signature 6 minutes in the future, as one 6 minutes old', async () => {
    const future = await help(nowSeconds() + 6 * 60);
    expect(future.res.status).toBe(401);
    expect((await help(staleTimestamp(6))).res.status).toBe(401);
    // Nothing of either was answered.
    await new Promise((r) => setTimeout(r, 200));
    expect(t.fake.responses.filter((r) => r.url === future.responseUrl)).toEqual([]);
    expect(t.logs()).toContain('refused a Slack request with a bad or stale signature');
    expect(t.logs().includes(t.signingSecret)).toBe(false);
  });

  it('accepts a clock a little off either way (within 5 minutes)', async () => {
    for (const ts of [nowSeconds() + 4 * 60, nowSeconds() - 4 * 60, nowSeconds()]) {
      const { res, responseUrl } = await help(ts);
      expect(res.status, String(ts - nowSeconds())).toBe(200);
      await t.replies(responseUrl);
    }
  });
});

describe('the Slack signature window on the receiver’s clock', () => {
  it('is 300 seconds either way, judged by both checks on the same clock (not Date.now)', async () => {
    // A clock an hour behind the machine's: Bolt's staleness check on Date.now would refuse
    // everything it accepts, and the 301-second boundaries would not be the same both ways.
    const clockMs = Date.now() - 3_600_000;
    const signingSecret = 'receiver-clock-signing-secret';
    const logger = createLogger({ level: 'silent' });
    const receiver = new SlackHttpReceiver({
      signingSecret,
      logger,
      boltLogger: boltLogger(logger),
      now: () => clockMs,
    });
    const server = createServer(receiver.requestListener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
      const clock = Math.floor(clockMs / 1000);
      const challenge = JSON.stringify({ token: 'x', challenge: 'c-clock', type: 'url_verification' });
      const status = async (offset: number) =>
        (await sendToBolt(url, signingSecret, challenge, { contentType: JSON_TYPE, timestamp: clock + offset })).status;
      const w = SIGNATURE_WINDOW_SECONDS;
      expect(w).toBe(300);
      expect(await status(0)).toBe(200);
      expect(await status(-w), '300 s old').toBe(200);
      expect(await status(-(w + 1)), '301 s old').toBe(401);
      expect(await status(w), '300 s ahead').toBe(200);
      expect(await status(w + 1), '301 s ahead').toBe(401);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
