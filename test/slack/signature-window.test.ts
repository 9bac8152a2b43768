/**
 * Slack's replay window both ways (issue 20, point 7): a request signed more than 5 minutes
 * in the future is refused (401) like one more than 5 minutes old, through the real receiver.
 * Bolt's own check refuses only the old ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowSeconds, staleTimestamp } from '../helpers/slack-requests.js';
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
