/**
 * Our HTTP receiver (src/slack/http-receiver.ts) in place of Bolt's stock one: the answers
 * Slack's platform expects for what is not a person's request (ssl_check, url_verification),
 * and the refusals, through the real server with requests signed as Slack signs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTARTING } from '../../src/slack/http-receiver.js';
import { checkEnvelope } from '../../src/slack/payloads.js';
import { BAD_SIGNATURE, FORM, JSON_TYPE, sendToBolt, slashCommand } from '../helpers/slack-requests.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the Slack receiver', () => {
  it("answers Slack's ssl_check with 200, signed or not", async () => {
    const signed = await sendToBolt(t.app.url, t.signingSecret, 'ssl_check=1&token=x');
    expect(signed.status).toBe(200);
    const unsigned = await sendToBolt(t.app.url, t.signingSecret, 'ssl_check=1&token=x', { signature: BAD_SIGNATURE });
    expect(unsigned.status).toBe(200);
  });

  it('an unsigned ssl_check carrying a command runs nothing', async () => {
    const responseUrl = t.fake.responseUrl();
    const cmd = slashCommand({ command: '/treasury', text: 'help', userId: USERS.viewer, responseUrl });
    // Both ways a body could smuggle a command behind ssl_check: as form fields, and as a JSON
    // `payload` (which a parser returns in place of the form, ssl_check and all dropped).
    for (const smuggled of [
      `ssl_check=1&${cmd.body}`,
      `ssl_check=1&payload=${encodeURIComponent(JSON.stringify(cmd.payload))}`,
    ]) {
      const res = await sendToBolt(t.app.url, t.signingSecret, smuggled, { signature: BAD_SIGNATURE });
      expect(res.status).toBe(200);
    }
    // The same command signed is answered on its response_url; the smuggled ones never were.
    const { responseUrl: answered } = await t.command('/treasury', 'help', USERS.viewer);
    await t.replies(answered);
    await sleep(300);
    expect(t.fake.responses.filter((r) => r.url === responseUrl)).toEqual([]);
  });

  it("answers url_verification with Slack's challenge", async () => {
    const res = await sendToBolt(
      t.app.url,
      t.signingSecret,
      JSON.stringify({ token: 'x', challenge: 'c-123', type: 'url_verification' }),
      { contentType: JSON_TYPE },
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ challenge: 'c-123' });
  });

  it('refuses a bad signature (401), a body over 1 MB (413) and a body that does not parse (400)', async () => {
    const cmd = slashCommand({ command: '/treasury', text: 'help', userId: USERS.viewer });
    expect((await sendToBolt(t.app.url, t.signingSecret, cmd, { signature: BAD_SIGNATURE })).status).toBe(401);
    const huge = `payload=${'a'.repeat(1024 * 1024 + 1)}`;
    expect((await sendToBolt(t.app.url, t.signingSecret, huge)).status).toBe(413);
    const garbled = await sendToBolt(t.app.url, t.signingSecret, '{"type":', { contentType: JSON_TYPE });
    expect(garbled.status).toBe(400);
    expect(garbled.json).toMatchObject({ error: 'not a Slack request payload' });
    expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
    expect(t.logs()).not.toContain(t.signingSecret);
  });

  it("passes Slack's retry headers on to the listeners, as Bolt's receiver did", async () => {
    const seen: Array<{ retryNum?: number; retryReason?: string }> = [];
    t.app.slack!.app.action('test_retry_probe', async ({ ack, context }) => {
      seen.push({ retryNum: context.retryNum, retryReason: context.retryReason });
      await ack();
    });
    const { res } = await t.click(
      USERS.viewer,
      { actionId: 'test_retry_probe', value: 'x' },
      { send: { retryNum: 2, retryReason: 'http_timeout' } },
    );
    expect(res.status).toBe(200);
    expect(seen).toEqual([{ retryNum: 2, retryReason: 'http_timeout' }]);
  });

  it('a listener that never acknowledges still gets Slack a 200 after 3 s, not an error', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    t.app.slack!.app.action('test_never_acks', async () => {
      await held;
    });
    const { res } = await t.click(USERS.viewer, { actionId: 'test_never_acks', value: 'x' });
    release();
    expect(res.status).toBe(200);
    expect(t.logs()).toContain('a Slack request was not acknowledged in time');
  });

  it('a signed request of the right shape is acknowledged and handled', async () => {
    const { res, responseUrl } = await t.command('/treasury', 'help', USERS.viewer, { send: { contentType: FORM } });
    expect(res.status).toBe(200);
    expect((await t.replies(responseUrl)).length).toBeGreaterThan(0);
  });
});

describe('while the app stops', () => {
  it('starts no new work, and waits for the work of requests already taken before the rest stops', async () => {
    const a = await startTestApp();
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let finished = false;
    // A click taken just before the stop whose work (a send, say) is still going on.
    a.app.slack!.app.action('test_slow_work', async ({ ack }) => {
      await ack();
      await held;
      finished = true;
    });
    try {
      expect((await a.click(USERS.viewer, { actionId: 'test_slow_work', value: 'x' })).res.status).toBe(200);
      let stopped = false;
      const stopping = a.stop().then(() => {
        stopped = true;
      });
      await sleep(50);
      // The whole app's stop turned Slack's door first: a command hears why, a click gets 503.
      const { res, responseUrl } = await a.command('/treasury', 'help', USERS.viewer);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ response_type: 'ephemeral', text: `:hourglass: ${RESTARTING}` });
      const click = await a.click(USERS.viewer, { actionId: 'wd_approve', value: 'x' });
      expect(click.res.status).toBe(503);
      // The stop waits for the work already taken.
      await sleep(200);
      expect(stopped).toBe(false);
      release();
      await stopping;
      expect(finished).toBe(true);
      expect(a.fake.responses.filter((r) => r.url === responseUrl || r.url === click.responseUrl)).toEqual([]);
    } finally {
      release();
    }
  });
});

describe('checkEnvelope', () => {
  it('checks each parsed body once: the same object gets the same answer without a second check', () => {
    const body = { type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'a', type: 'button' }] };
    const first = checkEnvelope(body);
    expect(first).toEqual({ ok: true, kind: 'block_actions' });
    expect(checkEnvelope(body)).toBe(first);
    // A different object of another shape is judged on its own.
    expect(checkEnvelope({ ...body, actions: [] }).ok).toBe(false);
  });
});
