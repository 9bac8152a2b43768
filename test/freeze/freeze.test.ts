/**
 * The freeze switch end to end: signed slash commands and button clicks in, the sandbox as the
 * wallet service over HTTP, the fake Slack out, the audit log, and a restart on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import { FREEZES } from '../../src/freeze/state.js';
import { parsePolicy } from '../../src/policy/load.js';
import { UNFREEZE_ACTION } from '../../src/slack/freeze-notice.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import {
  CHANNELS,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  visibleText,
  type TestApp,
  type TestAppOptions,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
/** Erin and Dave are admins: two distinct admins can unfreeze. */
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
  return a;
}

const text = (m: FakeMessage | Record<string, unknown>) => visibleText(m as { text?: unknown; blocks?: unknown });

async function say(a: TestApp, words: string, user: string): Promise<string> {
  const { responseUrl } = await a.command('/treasury', words, user);
  const [reply] = await a.replies(responseUrl);
  return text(reply!);
}

async function request(a: TestApp, amount = '500'): Promise<WithdrawalRequest> {
  const before = a.app.deps.withdrawals.list().length;
  await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice 9`, USERS.alice);
  return until('the request', () =>
    a.app.deps.withdrawals.list().length > before ? a.app.deps.withdrawals.list()[0] : undefined,
  );
}

const cardNow = (a: TestApp, r: WithdrawalRequest) => {
  const posted = a.app.deps.outbox.message(`withdrawal:${r.id}`);
  return posted?.ts ? a.fake.channel(CHANNELS.approvals).find((m) => m.ts === posted.ts) : undefined;
};
const cardOf = (a: TestApp, r: WithdrawalRequest) => until('the card', () => cardNow(a, r));

async function approve(a: TestApp, r: WithdrawalRequest, user: string = USERS.carol) {
  const card = await cardOf(a, r);
  const { res } = await a.click(
    user,
    { actionId: ACTIONS.approve, value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts } },
  );
  expect(res.status).toBe(200);
}

const noticeNow = (a: TestApp) => {
  const f = a.app.deps.store.all(FREEZES).at(-1);
  const posted = f ? a.app.deps.outbox.message(`freeze:${f.id}`) : undefined;
  return posted?.ts ? a.fake.channel(CHANNELS.approvals).find((m) => m.ts === posted.ts) : undefined;
};
const notice = (a: TestApp) => until('the freeze notice', () => noticeNow(a));

async function clickUnfreeze(a: TestApp, user: string): Promise<string> {
  const n = await notice(a);
  const id = a.app.deps.freeze.current()?.id ?? '';
  const { responseUrl } = await a.click(
    user,
    { actionId: UNFREEZE_ACTION, value: id },
    { channel: CHANNELS.approvals, message: { ts: n.ts } },
  );
  const [reply] = await a.replies(responseUrl);
  return text(reply!);
}

const actions = (a: TestApp) => recentAudit(a.app.deps.store, 1000).map((e) => e.action);

describe('/treasury freeze', () => {
  it('is for admins, and needs a reason', async () => {
    const a = await app();
    expect(await say(a, 'freeze keys leaked', USERS.carol)).toContain('not allowed');
    const usage = await say(a, 'freeze', USERS.erin);
    expect(usage).toContain('A freeze needs a reason');
    expect(usage).toContain('/treasury freeze <reason>');
    expect(a.app.deps.freeze.current()).toBeUndefined();
    expect(actions(a)).not.toContain('freeze');
  });

  it('holds approved sends; one admin alone cannot unfreeze; a second confirms and the request is sent exactly once', async () => {
    const a = await app();
    const said = await say(a, 'freeze API key may have leaked', USERS.erin);
    expect(said).toContain('Sends are frozen');
    const n = await notice(a);
    expect(text(n)).toContain(`Frozen by <@${USERS.erin}>`);
    expect(text(n)).toContain('API key may have leaked');
    expect(JSON.stringify(n.blocks)).toContain(UNFREEZE_ACTION);
    expect(await say(a, 'freeze again', USERS.dave)).toContain('already frozen');
    // Everyone's one-line status says so.
    expect(await say(a, 'status', USERS.viewer)).toMatch(/sends are frozen by <@U0ERIN001>: API key may have leaked/i);

    // Pending requests can still be approved; the approved one is not sent.
    const r = await request(a);
    await approve(a, r);
    await until('approved', () => a.app.deps.withdrawals.get(r.id)?.state === 'approved');
    await a.app.deps.withdrawals.idle();
    expect(a.app.deps.withdrawals.get(r.id)?.state).toBe('approved');
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    const held = await until('the card says frozen', () => {
      const c = cardNow(a, r);
      return c && text(c).includes('Approved, held') ? c : undefined;
    });
    expect(text(held)).toContain(`Frozen by <@${USERS.erin}>: API key may have leaked`);
    expect(text(held)).toContain('it is sent once two admins unfreeze');
    // The send's claim (refused by the freeze, audited) runs after the ack's quiet window: wait for it.
    await until('the held send audited', () => actions(a).includes('send_held'));
    expect(actions(a)).toEqual(expect.arrayContaining(['freeze', 'send_held']));

    // The App Home says so too.
    await sendToBolt(
      a.app.url,
      a.signingSecret,
      eventCallback({ event: { type: 'app_home_opened', user: USERS.carol, channel: 'D0HOME', tab: 'home' } }),
    );
    const home = await a.fake.waitFor('views.publish', (c) => c.args.user_id === USERS.carol);
    expect(text(home.args.view as { blocks: unknown })).toContain(
      `Frozen by <@${USERS.erin}>: API key may have leaked`,
    );

    // The same admin asks, then tries to confirm alone: still frozen, nothing sent.
    expect(await clickUnfreeze(a, USERS.erin)).toContain('request to unfreeze is recorded');
    expect(await clickUnfreeze(a, USERS.erin)).toContain('already asked');
    expect(await say(a, 'unfreeze', USERS.erin)).toContain('already asked');
    expect(a.app.deps.freeze.current()).toBeDefined();
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    // A non-admin's click changes nothing.
    expect(await clickUnfreeze(a, USERS.carol)).toContain('Only treasury admins');
    await until('the notice shows the request', () => text(noticeNow(a) ?? {}).includes('asked to unfreeze'));

    // A second, different admin confirms on the notice: sends resume, the approved request goes once.
    expect(await clickUnfreeze(a, USERS.dave)).toContain('Sends resumed');
    await until('sent', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
    await a.app.deps.withdrawals.idle();
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);
    expect(a.app.sandbox!.stats.verifications).toEqual([{ reference: r.merchantReference, verified: true }]);
    expect(a.app.deps.freeze.current()).toBeUndefined();
    // Nothing left to unfreeze; a late click on the old notice does nothing more.
    expect(await say(a, 'unfreeze', USERS.erin)).toContain('not frozen');
    expect(await clickUnfreeze(a, USERS.erin)).toContain('not frozen');
    const audit = recentAudit(a.app.deps.store, 1000);
    expect(audit.find((e) => e.action === 'unfreeze')).toMatchObject({
      actor: USERS.dave,
      details: { requestedBy: USERS.erin, confirmedBy: USERS.dave, frozenBy: USERS.erin },
    });
    expect(audit.filter((e) => e.action === 'unfreeze_refused').map((e) => e.actor)).toEqual([
      USERS.erin, // clicked again
      USERS.erin, // and typed /treasury unfreeze
      USERS.carol, // not an admin
    ]);
    await until('the notice says resumed', () => text(noticeNow(a) ?? {}).includes('Sends resumed'));
  });

  it('survives a restart: the approved request stays unsent until unfrozen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'treasury-freeze-'));
    try {
      const first = await app({ dataDir });
      await say(first, 'freeze audit in progress', USERS.erin);
      const r = await request(first);
      await approve(first, r);
      await until('approved', () => first.app.deps.withdrawals.get(r.id)?.state === 'approved');
      await first.app.deps.withdrawals.idle();
      running.splice(running.indexOf(first), 1);
      await first.stop();

      const again = await app({ dataDir });
      expect(again.app.deps.freeze.current()).toMatchObject({ by: USERS.erin, reason: 'audit in progress' });
      await again.app.deps.withdrawals.idle();
      expect(again.app.deps.withdrawals.get(r.id)?.state).toBe('approved');
      expect(again.app.sandbox!.stats.withdrawals).toBe(0);
      expect(await say(again, 'status', USERS.erin)).toContain(`Frozen by <@${USERS.erin}>`);
      running.splice(running.indexOf(again), 1);
      await again.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with a single admin, says that unfreezing needs a second admin and how to add one', async () => {
    const a = await app({ policy: parsePolicy(TEST_POLICY_YAML) });
    expect(await say(a, 'freeze testing', USERS.erin)).toContain('people.admins');
    const asked = await say(a, 'unfreeze', USERS.erin);
    expect(asked).toContain('needs a second, different admin');
    expect(asked).toContain('people.admins');
    expect(a.app.deps.freeze.current()).toBeDefined();
  });
});
