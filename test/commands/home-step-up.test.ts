/**
 * Approving from the App Home with an authenticator code: the Home's Approve opens the code
 * modal; once the code is accepted and the approval recorded, the Home is published again
 * within a second, saying so and no longer asking for that decision (the modal itself cannot
 * tell the Home). Signed Slack requests in, the recording fake Web API out, a clock the test moves.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { HOME_APPROVE } from '../../src/slack/home/view.js';
import { codeAt } from '../../src/stepup/index.js';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { clientOnRecord } from '../helpers/clients.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'stepup@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  step_up_above: { USDT: 500 }\n',
  ),
);
let offset = 0;
const clock = () => Date.now() + offset;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const homes = (a: TestApp, user: string) => a.fake.calls('views.publish').filter((c) => c.args.user_id === user);
const text = (v: unknown) => visibleText({ blocks: (v as { blocks: unknown }).blocks });

it('after approving with a code in the modal opened from the Home, the Home is published again at once, without the decision', async () => {
  t = await startTestApp({ policy: POLICY, now: clock, env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
  const a = t;
  a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
  await clientOnRecord({ store: a.app.deps.store, wallet: a.app.deps.wallet }, CLIENT);
  await sendToBolt(
    a.app.url,
    a.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user: USERS.carol, channel: 'D0HOME', tab: 'home' } }),
  );
  await until('the Home', () => homes(a, USERS.carol)[0]);
  // Carol sets up codes from the Home.
  await a.click(USERS.carol, { actionId: 'home_stepup_enrol', value: 'enrol' });
  const enrol = await until('the enrolment modal', () => a.fake.views().find((v) => v.callback_id === 'stepup_enrol'));
  const secret = /`([A-Z2-7 ]+)`/.exec(visibleText({ blocks: enrol.blocks }))![1]!.replace(/ /g, '');
  offset += 30_000;
  const confirmed = await a.submitView(USERS.carol, {
    callbackId: 'stepup_enrol',
    values: { stepup_enrol_code: { code: { type: 'plain_text_input', value: codeAt(secret, clock()) } } },
  });
  expect(confirmed.body).toBe('');

  await a.command('/withdraw', `2000 USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
  const r = await until('the request', () => a.app.deps.withdrawals.list()[0]);
  await until('the card', () => a.app.deps.outbox.message(`withdrawal:${r.id}`)?.ts);
  const before = homes(a, USERS.carol).length;
  // The Home's Approve (confirmed in Slack's dialog): the code modal opens.
  await a.click(USERS.carol, { actionId: HOME_APPROVE, value: r.id });
  await until('the code modal', () => a.fake.views().find((v) => v.callback_id === 'withdraw_step_up'));
  offset += 30_000;
  const sent = Date.now();
  const res = await a.submitView(USERS.carol, {
    callbackId: 'withdraw_step_up',
    privateMetadata: JSON.stringify({ id: r.id }),
    values: { stepup_code: { code: { type: 'plain_text_input', value: codeAt(secret, clock()) } } },
  });
  expect(res.status).toBe(200);
  expect(a.app.deps.withdrawals.get(r.id)!.approvals.map((x) => x.user)).toEqual([USERS.carol]);
  const home = await until('the Home published again', () =>
    homes(a, USERS.carol)
      .slice(before)
      .find((c) => text(c.args.view).includes('Your approval of')),
  );
  expect(home.at - sent).toBeLessThan(1000);
  const shown = text(home.args.view);
  expect(shown).toContain(
    ':white_check_mark: Your approval of *2,000.00 USDT* on BSC to `0x2222…2222` was recorded: it needs 1 more approval.',
  );
  expect(shown).toContain('*Waiting for your decision* (0)');
  expect(shown).toContain(
    `⏳ 1 of 2 approvals · ⚠️ not on the allowlist · never paid before · Needs 1 more of <@${USERS.dave}> or <@${USERS.erin}>`,
  );
}, 30_000);
