/**
 * The team's queue end to end: signed slash commands, button clicks and modal submissions in,
 * the recording fake Slack out. `/treasury pending` and the App Home's "Waiting on the team"
 * say what each open request still needs, by name; the Home's Approve shows the card's flags and
 * note and confirms; every Home showing a request is published again after a decision made
 * elsewhere (a modal, the card); a frozen card says so in its header.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { HOME_APPROVE } from '../../src/slack/home/view.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import {
  CHANNELS,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  visibleText,
  type TestApp,
  type TestAppOptions,
} from '../helpers/treasury-app.js';
import { clientOnRecord } from '../helpers/clients.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'queue@client.example';
const LISTED = '0x1111111111111111111111111111111111111111';
const UNLISTED = '0x4444444444444444444444444444444444444444';
const TWO_ADMINS = parsePolicy(
  TEST_POLICY_YAML.replace(`admins: [${USERS.erin}]`, `admins: [${USERS.erin}, ${USERS.dave}]`),
);

const running: TestApp[] = [];
afterEach(async () => {
  for (const a of running.splice(0)) await a.stop();
});

async function app(o: TestAppOptions = {}): Promise<TestApp> {
  const a = await startTestApp({ policy: TWO_ADMINS, ...o });
  running.push(a);
  a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
  // A client in use (its address generated through the app): not flagged as new on the cards.
  await clientOnRecord({ store: a.app.deps.store, wallet: a.app.deps.wallet }, CLIENT);
  return a;
}

const text = (m: unknown) => visibleText(m as { text?: unknown; blocks?: unknown });

async function say(a: TestApp, words: string, user: string): Promise<Record<string, unknown>> {
  const { responseUrl } = await a.command('/treasury', words, user);
  const [reply] = await a.replies(responseUrl);
  return reply!;
}

async function request(a: TestApp, line: string, user: string = USERS.alice): Promise<WithdrawalRequest> {
  const before = a.app.deps.withdrawals.list().length;
  await a.command('/withdraw', line, user);
  return until('the request', () =>
    a.app.deps.withdrawals.list().length > before ? a.app.deps.withdrawals.list()[0] : undefined,
  );
}

const cardNow = (a: TestApp, r: WithdrawalRequest) => {
  const posted = a.app.deps.outbox.message(`withdrawal:${r.id}`);
  return posted?.ts ? a.fake.channel(CHANNELS.approvals).find((m) => m.ts === posted.ts) : undefined;
};

async function clickCard(a: TestApp, r: WithdrawalRequest, user: string, actionId: string = ACTIONS.approve) {
  const card = await until('the card', () => cardNow(a, r));
  const { res } = await a.click(
    user,
    { actionId, value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts } },
  );
  expect(res.status).toBe(200);
}

/** The Home views published for `user`, oldest first. */
const homes = (a: TestApp, user: string) => a.fake.calls('views.publish').filter((c) => c.args.user_id === user);

async function openHome(a: TestApp, user: string) {
  const before = homes(a, user).length;
  const res = await sendToBolt(
    a.app.url,
    a.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }),
  );
  expect(res.status).toBe(200);
  const call = await until('the Home published', () => homes(a, user)[before]);
  return call.args.view as { blocks: Array<Record<string, unknown>> };
}

/** The next Home published for `user` after `before` of them, and how long after `since` it came. */
async function nextHome(a: TestApp, user: string, before: number, pred: (t: string) => boolean) {
  return until(
    `a newer Home for ${user}`,
    () => {
      const c = homes(a, user)
        .slice(before)
        .find((h) => pred(text(h.args.view)));
      return c ? { view: c.args.view as { blocks: unknown[] }, at: c.at } : undefined;
    },
    5000,
  );
}

describe('/treasury pending', () => {
  it('lists every open request with payee, requester, age, time left and what it still needs by name', async () => {
    const a = await app();
    const small = await request(a, `25 USDT BSC ${LISTED} ${CLIENT} invoice 7`);
    const big = await request(a, `20000 USDT BSC ${UNLISTED} ${CLIENT} supplier run`, USERS.bob);
    await clickCard(a, big, USERS.carol);
    await until('one approval', () => a.app.deps.withdrawals.get(big.id)!.approvals.length === 1);

    const reply = await say(a, 'pending', USERS.viewer);
    const t = text(reply);
    expect(t).toContain('Waiting on the team (2)');
    // The one expiring first is on top; equal deadlines keep the older first.
    expect(t).toContain(
      `*25.00 USDT* on BSC to Exchange hot wallet (\`0x1111…1111\`) · requested by <@${USERS.alice}> less than a minute ago · 1 h 59 min left`,
    );
    expect(t).toContain(
      `⏳ 0 of 1 approval · ⚠️ never paid before · Needs 1 more of <@${USERS.carol}>, <@${USERS.dave}> or <@${USERS.erin}>`,
    );
    expect(t).toContain(`*20,000.00 USDT* on BSC to \`0x4444…4444\` · requested by <@${USERS.bob}>`);
    expect(t).toContain(
      `⏳ 1 of 3 approvals · ⚠️ not on the allowlist · never paid before · Needs 2 more of <@${USERS.dave}> or <@${USERS.erin}>; must include <@${USERS.erin}>`,
    );
    // Nothing internal: no request ids, no config keys.
    expect(t).not.toContain(small.id);
    expect(t).not.toMatch(/must_include|people\.approvers/);
    expect((reply.blocks as unknown[]).length).toBeLessThanOrEqual(50);

    // Dave approves: the last slot is reserved for Erin (the tier's must_include), and it says so.
    await clickCard(a, big, USERS.dave);
    await until('two approvals', () => a.app.deps.withdrawals.get(big.id)!.approvals.length === 2);
    expect(text(await say(a, 'pending', USERS.viewer))).toContain(
      `⏳ 2 of 3 approvals · ⚠️ not on the allowlist · never paid before · Needs 1 more approval: only <@${USERS.erin}> may give it (its tier requires it)`,
    );
  });

  it('is for everyone who may view; others are refused', async () => {
    const a = await app();
    expect(text(await say(a, 'pending', USERS.outsider))).toMatch(/not allowed/i);
    expect(text(await say(a, 'pending', USERS.groupMember))).toContain('Nothing is waiting');
    expect(text(await say(a, 'help', USERS.viewer))).toContain('`/treasury pending`');
  });

  it('caps its rows within Slack limits and says how many more there are', async () => {
    const a = await app();
    for (let i = 0; i < 42; i++)
      await request(a, `${i + 1} USDT BSC ${LISTED} ${CLIENT}`, i % 2 ? USERS.bob : USERS.alice);
    const reply = await say(a, 'pending', USERS.viewer);
    const blocks = reply.blocks as Array<{ text?: { text?: string } }>;
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const b of blocks) expect((b.text?.text ?? '').length).toBeLessThanOrEqual(3000);
    expect(text(reply)).toContain('Waiting on the team (42)');
    expect(text(reply)).toContain('…and 2 more on their cards in the approvals channel.');
  }, 60_000);

  it('marks frozen requests, and a frozen card says "⏸️ Frozen" in its header instead of its approvals', async () => {
    const a = await app();
    const r = await request(a, `30 USDT BSC ${UNLISTED} ${CLIENT}`);
    await until('the card', () => cardNow(a, r));
    expect(text(await say(a, 'freeze card compromise', USERS.erin))).toContain('Sends are frozen');
    const card = await until('the frozen card', () => {
      const c = cardNow(a, r);
      return c && text(c).includes('Frozen by') ? c : undefined;
    });
    const header = (card.blocks as Array<{ type: string; text?: { text: string } }>)[0]!;
    expect(header).toMatchObject({ type: 'header', text: { text: '⏸️ Frozen · 30.00 USDT on BSC' } });
    expect(text(card)).not.toContain('0 of 1 approval ·');
    const t = text(await say(a, 'pending', USERS.viewer));
    expect(t).toContain(`🛑 Sends are frozen by <@${USERS.erin}>: card compromise`);
    expect(t).toContain('⏳ 0 of 1 approval · 🛑 Frozen · ⚠️ not on the allowlist');
  });
});

describe('the App Home', () => {
  it("shows the team's queue, and its Approve shows the card's flags and note and asks to confirm with amount and payee", async () => {
    const a = await app();
    const r = await request(a, `30 USDT BSC ${UNLISTED} ${CLIENT} invoice 7 for October`);
    await until('the card', () => cardNow(a, r));
    const view = await openHome(a, USERS.carol);
    const t = text(view);
    expect(t).toContain('*Waiting on the team* (1)');
    expect(t).toContain(`Needs 1 more of <@${USERS.carol}>, <@${USERS.dave}> or <@${USERS.erin}>`);
    expect(t).toContain(':warning: *Check before approving:* not on the allowlist · never paid before');
    expect(t).toContain('*Note:* invoice 7 for October');
    const row = view.blocks.find((b) => b.type === 'actions' && String(b.block_id).startsWith('home_decide_')) as {
      elements: Array<Record<string, unknown>>;
    };
    const approve = row.elements.find((e) => e.action_id === HOME_APPROVE)!;
    expect(approve.confirm).toMatchObject({
      title: { type: 'plain_text', text: 'Approve this withdrawal?' },
      confirm: { text: 'Approve' },
      deny: { text: 'Cancel' },
      text: {
        type: 'plain_text',
        text: `Approve 30.00 USDT on BSC to 0x4444…4444, from client wallet ${CLIENT}? ⚠️ not on the allowlist · never paid before. Note: invoice 7 for October`,
      },
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
  });

  it('after a rejection with a reason in a modal, every open Home that showed the request is published again within a second', async () => {
    const a = await app();
    const r = await request(a, `30 USDT BSC ${UNLISTED} ${CLIENT}`);
    await until('the card', () => cardNow(a, r));
    expect(text(await openHome(a, USERS.carol))).toContain('*Waiting for your decision* (1)');
    expect(text(await openHome(a, USERS.dave))).toContain('*Waiting on the team* (1)');
    expect(text(await openHome(a, USERS.alice))).toContain('*Your open requests*');
    const before = {
      carol: homes(a, USERS.carol).length,
      dave: homes(a, USERS.dave).length,
      alice: homes(a, USERS.alice).length,
    };

    const dmsOf = (user: string) => a.fake.channel(a.fake.dmChannel(user));
    await until('Carol asked by DM', () =>
      dmsOf(USERS.carol).find((m) => (m.text ?? '').includes('Your approval is asked')),
    );
    // Dave rejects from the card (the same modal opens from the Home's Reject…).
    await clickCard(a, r, USERS.dave, ACTIONS.reject);
    const modal = await until('the reason modal', () =>
      a.fake.views().find((v) => v.callback_id === 'wd_reject_modal'),
    );
    const sent = Date.now();
    const res = await a.submitView(USERS.dave, {
      callbackId: 'wd_reject_modal',
      privateMetadata: modal.private_metadata!,
      values: { reason: { value: { type: 'plain_text_input', value: 'Wrong destination' } } },
    });
    expect(res.status).toBe(200);

    const carol = await nextHome(a, USERS.carol, before.carol, (t) => t.includes('*Waiting for your decision* (0)'));
    expect(text(carol.view)).toContain('*Waiting on the team* (0)');
    expect(carol.at - sent).toBeLessThan(1000);
    // The one who decided reads what they did, replacing any older banner.
    const dave = await nextHome(a, USERS.dave, before.dave, (t) => t.includes('You rejected'));
    expect(text(dave.view)).toContain(
      `:no_entry: You rejected *30.00 USDT* on BSC to \`0x4444…4444\`: “Wrong destination”. The requester was told.`,
    );
    const alice = await nextHome(a, USERS.alice, before.alice, (t) => t.includes('⛔ Rejected'));
    expect(alice.at - sent).toBeLessThan(1000);
    // The DM that asked Carol is edited in place: it no longer asks.
    const asked = await until("Carol's DM edited", () =>
      dmsOf(USERS.carol).find((m) => (m.text ?? '').startsWith('⛔ Rejected')),
    );
    expect(asked.text).toContain(`by <@${USERS.dave}>: “Wrong destination” Nothing more is asked of you.`);
    expect(dmsOf(USERS.carol).filter((m) => (m.text ?? '').includes('Your approval is asked'))).toEqual([]);
  });

  it("after an approval on the card, the approver's open Home drops it from their decisions and says it was recorded", async () => {
    const a = await app();
    const r = await request(a, `2000 USDT BSC ${LISTED} ${CLIENT}`);
    await until('the card', () => cardNow(a, r));
    expect(text(await openHome(a, USERS.carol))).toContain('*Waiting for your decision* (1)');
    const before = homes(a, USERS.carol).length;
    await clickCard(a, r, USERS.carol);
    const carol = await nextHome(a, USERS.carol, before, (t) => t.includes('Your approval of'));
    const t = text(carol.view);
    expect(t).toContain(
      ':white_check_mark: Your approval of *2,000.00 USDT* on BSC to Exchange hot wallet (`0x1111…1111`) was recorded: it needs 1 more approval.',
    );
    expect(t).toContain('*Waiting for your decision* (0)');
    // Her DM says she approved and what the request still needs.
    const dm = await until("Carol's DM edited", () =>
      a.fake.channel(a.fake.dmChannel(USERS.carol)).find((m) => (m.text ?? '').startsWith('✅ You approved')),
    );
    expect(dm.text).toContain(`Needs 1 more of <@${USERS.dave}> or <@${USERS.erin}>.`);
    expect(t).toContain(
      `⏳ 1 of 2 approvals · ⚠️ never paid before · Needs 1 more of <@${USERS.dave}> or <@${USERS.erin}>`,
    );
  });
});
