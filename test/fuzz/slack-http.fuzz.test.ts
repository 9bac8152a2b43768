/**
 * Hostile input through the real receiver, signed as Slack signs it, and hostile webhook
 * bodies through the real route: slash commands with any text for every command, mutated
 * interaction payloads (block actions, view submissions, view closed, shortcuts), and any
 * webhook body. Properties: never a 5xx, the process stays up, nothing rejects unhandled,
 * a person waiting gets an answer that is not "internal error", refused input changes no
 * state, and everything sent to Slack fits its limits.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { depositSample } from '../alerts/setup.js';
import { blockAction, sendToBolt, viewSubmission, type Json } from '../helpers/slack-requests.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { limitViolations } from '../slack/limits-check.js';
import { commandText, hostileJson, hostileString, http as httpRuns, PROTO_KEYS } from './config.js';

const SECRET = 'wh_fuzz_secret_0123456789abcdef';
let t: TestApp;
const unhandled: unknown[] = [];
const onUnhandled = (r: unknown) => unhandled.push(r);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  t = await startTestApp({ env: { WEBHOOK_SECRET: SECRET }, sandbox: { seed: true } });
});
afterAll(async () => {
  await t.stop();
  process.off('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  expect(unhandled).toEqual([]);
  expect(limitViolations(t.fake.calls(), t.fake.responses)).toEqual([]);
  expect((await fetch(`${t.app.url}/healthz`)).status).toBe(200);
});

const anyUser = fc.constantFrom(...Object.values(USERS));

async function firstAnswer(responseUrl: string, viewsBefore: number): Promise<string | 'view'> {
  const end = Date.now() + 15_000;
  for (;;) {
    const got = t.fake.responses.filter((r) => r.url === responseUrl);
    if (got.length) return visibleText(got[0]!.body);
    if (t.fake.calls('views.open').length > viewsBefore) return 'view';
    if (Date.now() > end) throw new Error(`no answer on ${responseUrl}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('slash commands with any text', () => {
  for (const command of ['/tx', '/treasury', '/withdraw', '/address']) {
    it(`${command}: 200, an answer, never "internal error", refusals change nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(commandText, anyUser, async (text, user) => {
          // `/tx export` and a bare `/withdraw` are legitimate paths (a file, a modal); fuzz the parsing around them.
          const before = t.app.deps.withdrawals.list().length;
          const viewsBefore = t.fake.calls('views.open').length;
          const { res, responseUrl } = await t.command(command, text, user);
          expect(res.status).toBe(200);
          const answer = await firstAnswer(responseUrl, viewsBefore);
          if (answer !== 'view') {
            expect(answer).not.toContain('internal error');
            expect(answer.length).toBeGreaterThan(0);
            if (!/Requested/.test(answer)) expect(t.app.deps.withdrawals.list().length).toBe(before);
          }
        }),
        httpRuns(30),
      );
    }, 120_000);
  }
});

/** Replace the value at a random path of a payload (or add a hostile key there). */
function mutate(payload: Json): fc.Arbitrary<Json> {
  const paths: string[][] = [];
  const walk = (v: unknown, p: string[]) => {
    paths.push(p);
    if (v && typeof v === 'object' && p.length < 6) for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
  };
  walk(payload, []);
  return fc
    .tuple(
      fc.constantFrom(...paths.filter((p) => p.length > 0)),
      hostileJson,
      fc.option(fc.constantFrom(...PROTO_KEYS, 'extra')),
    )
    .map(([p, value, key]) => {
      const copy = structuredClone(payload);
      let o = copy as Record<string, unknown>;
      for (const k of p.slice(0, -1)) o = o[k] as Record<string, unknown>;
      if (key) {
        const target = o[p.at(-1)!];
        if (target && typeof target === 'object')
          Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      } else o[p.at(-1)!] = value;
      return copy;
    });
}

describe('interaction payloads of any shape', () => {
  const responseUrl = () => t.fake.responseUrl({ channel: 'C0WORKROOM', user: USERS.viewer });
  const action = (actionId: string, value: string) =>
    blockAction({
      userId: USERS.carol,
      channelId: 'C0WORKROOM',
      message: { ts: '1700000000.000100' },
      responseUrl: responseUrl(),
      actions: [{ actionId, value }],
    }).payload;
  const submission = (callbackId: string) =>
    viewSubmission({
      userId: USERS.alice,
      callbackId,
      privateMetadata: '{"id":"nope","outcome":"sent"}',
      values: {
        wd_amount: { value: { type: 'plain_text_input', value: '10' } },
        wd_currency: {
          value: {
            type: 'static_select',
            selected_option: { value: 'USDT', text: { type: 'plain_text', text: 'USDT' } },
          },
        },
        wd_network: {
          value: {
            type: 'static_select',
            selected_option: { value: 'BSC', text: { type: 'plain_text', text: 'BSC' } },
          },
        },
        wd_destination: { value: { type: 'plain_text_input', value: 'not-an-address' } },
        wd_client: { value: { type: 'email_text_input', value: 'c@example.com' } },
        reason: { value: { type: 'plain_text_input', value: 'because' } },
      },
    }).payload;
  const bases = (): Json[] => [
    action('tx_next', '{"f":{},"p":2}'),
    action('wd_approve', 'nope'),
    action('wd_reject', 'nope'),
    action('no_such_action', 'x'),
    submission('wd_request_modal'),
    submission('wd_reject_modal'),
    submission('wd_resolve_modal'),
    {
      type: 'view_closed',
      user: { id: USERS.alice },
      view: { id: 'V1', callback_id: 'wd_request_modal' },
      team: { id: 'T1' },
    },
    { type: 'shortcut', callback_id: 'anything', user: { id: USERS.alice }, trigger_id: '1.2.3', team: { id: 'T1' } },
  ];
  it('never a 5xx, never a crash; refused input changes nothing', async () => {
    const payload = fc.oneof(
      fc.constantFrom(...bases()).chain(mutate),
      hostileJson.map((v) => v as Json),
    );
    await fc.assert(
      fc.asyncProperty(payload, fc.boolean(), async (p, asForm) => {
        const before = t.app.deps.withdrawals.list().length;
        const raw = asForm
          ? new URLSearchParams({ payload: JSON.stringify(p) ?? 'null' }).toString()
          : (JSON.stringify(p) ?? 'null');
        const res = await sendToBolt(t.app.url, t.signingSecret, raw, {
          contentType: asForm ? 'application/x-www-form-urlencoded' : 'application/json',
        });
        expect(res.status).toBeLessThan(500);
        expect([200, 400]).toContain(res.status);
        if (res.status === 400) expect(t.app.deps.withdrawals.list().length).toBe(before);
      }),
      httpRuns(250),
    );
  }, 120_000);
});

describe('webhook bodies of any shape', () => {
  const body = fc.oneof(
    hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
    fc.string(),
    fc.integer({ min: 60, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
    fc.integer({ min: 60, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc
      .record({
        hash: fc.stringMatching(/^0x[0-9a-f]{64}$/),
        status: fc.oneof(fc.integer(), hostileString),
        amount: fc.oneof(hostileString, fc.constant('1e400')),
        currency: fc.oneof(fc.integer(), hostileString),
      })
      .map((o) =>
        depositSample({ hash: o.hash, status: o.status, amount: JSON.stringify(o.amount), currency: o.currency }),
      ),
  );

  it('200, 400 or 413: never a 5xx, and the app stays up', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fetch(`${t.app.url}/webhooks/wallet/${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: b,
        });
        await res.text();
        expect([200, 400, 413]).toContain(res.status);
      }),
      httpRuns(200),
    );
  }, 120_000);
});
