/**
 * Delegation (issue 39), end to end: signed `/treasury away` and `/treasury back` commands and
 * Approve clicks in, the recording fake Slack out, the app against its embedded sandbox. An
 * approver who is away gets no DM; their delegate does, approves in their place (the card and
 * the audit name both, one vote for the two), and never on a request either of them made; a cycle
 * or a chain of delegations is refused; an admin may set someone else's state, who is told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { AWAY } from '../../src/away/state.js';
import { parsePolicy } from '../../src/policy/load.js';
import { approverDmKey } from '../../src/slack/withdrawal-notify.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { eventCallback, sendToBolt } from '../helpers/slack-requests.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const { alice, carol, dave, erin } = USERS;
/** Ten days from now, as typed: back at 00:00 UTC that day. */
const SOON = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);

const policy = parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${alice}, ${carol}, ${dave}]
  approvers: [${carol}, ${dave}, ${erin}]
  admins: [${erin}]
withdrawals:
  expires_after: 2h
  tiers:
    default:
      - { max: 1000, approvals: 1 }
      - { max: 10000, approvals: 2 }
      - { approvals: 3, must_include: [${erin}] }
`);

const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.stop();
});

async function start(p = policy): Promise<TestApp> {
  const a = await startTestApp({ policy: p });
  apps.push(a);
  a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return a;
}

/** A /treasury command; the words its answer says. */
async function treasury(a: TestApp, user: string, text: string): Promise<string> {
  const { responseUrl } = await a.command('/treasury', text, user);
  return visibleText((await a.replies(responseUrl))[0]!);
}

async function request(a: TestApp, who: string, amount = '5000'): Promise<WithdrawalRequest> {
  const before = a.app.deps.withdrawals.list().length;
  await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice 7`, who);
  await until('the request', () => a.app.deps.withdrawals.list().length > before);
  const r = a.app.deps.withdrawals.list()[0]!;
  await a.app.deps.outbox.drain(5000);
  return r;
}

const cardOf = (a: TestApp, id: string) =>
  until('the card', () =>
    a.fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(id)),
  );

/** An Approve click on the card; the request as stored after it. */
async function approve(a: TestApp, user: string, r: WithdrawalRequest): Promise<WithdrawalRequest> {
  const c = await cardOf(a, r.id);
  const before = JSON.stringify(a.app.deps.withdrawals.get(r.id)!.approvals);
  const { res, responseUrl } = await a.click(
    user,
    { actionId: 'wd_approve', value: r.id },
    { channel: CHANNELS.approvals, message: { ts: c.ts, blocks: c.blocks } },
  );
  expect(res.status).toBe(200);
  // Acknowledged first: decided once the approvals change, or the clicker is answered (a refusal).
  await until(
    'the decision',
    () =>
      JSON.stringify(a.app.deps.withdrawals.get(r.id)!.approvals) !== before ||
      a.fake.responseMessages(responseUrl).length > 0,
  );
  await a.app.deps.outbox.drain(5000);
  return a.app.deps.withdrawals.get(r.id)!;
}

/** The approval DMs a person was sent about a request: the outbox's record of the ask, and what reached Slack. */
const asks = (a: TestApp, user: string, r: WithdrawalRequest) =>
  a.app.deps.outbox.message(approverDmKey(r.id, user))?.ts
    ? a.fake
        .channel(a.fake.dmChannel(user))
        .filter((m) => m.ts === a.app.deps.outbox.message(approverDmKey(r.id, user))?.ts)
    : [];
/** Every approval ask a person ever got. */
const anyAsk = (a: TestApp, user: string) =>
  a.fake.channel(a.fake.dmChannel(user)).filter((m) => (m.text ?? '').includes('Your approval is asked'));

/** The App Home as `user` opens it: its words. */
async function home(a: TestApp, user: string): Promise<string> {
  const homes = () => a.fake.calls('views.publish').filter((c) => c.args.user_id === user);
  const before = homes().length;
  await sendToBolt(
    a.app.url,
    a.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }),
  );
  const call = await until('the Home', () => homes()[before]);
  return visibleText(call.args.view as { blocks: unknown });
}

const audit = (a: TestApp, action: string) => a.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.action === action);

describe('delegation', () => {
  it('an approver away gets no DM; their delegate does, approves for them (the card names both), and the two are one vote', async () => {
    const a = await start();
    expect(await treasury(a, dave, `away until 3d delegate <@${carol}>`)).toMatch(
      new RegExp(`You are away until .*<@${carol}> is asked in your place`),
    );
    expect(a.app.deps.store.get(AWAY, dave)).toMatchObject({ delegate: carol, setBy: dave });
    expect(audit(a, 'away_set')[0]).toMatchObject({ actor: dave, subject: dave, details: { delegate: carol } });
    // The Home shows each their state.
    expect(await home(a, dave)).toMatch(new RegExp(`You are away until .*<@${carol}> approves in your place`));
    expect(await home(a, carol)).toContain(`You approve in place of <@${dave}> until`);
    // Carol is told by DM that she stands in.
    await a.app.deps.outbox.drain(5000);
    expect(a.fake.channel(a.fake.dmChannel(carol)).map((m) => m.text ?? '')).toEqual([
      expect.stringContaining(`<@${dave}> is away until`),
    ]);

    const r = await request(a, alice);
    await until('the DMs', () => asks(a, erin, r).length === 1);
    expect(asks(a, dave, r)).toEqual([]);
    expect(anyAsk(a, dave)).toEqual([]);
    expect(asks(a, carol, r)).toHaveLength(1);

    const once = await approve(a, carol, r);
    expect(once.approvals).toEqual([expect.objectContaining({ user: carol, for: [dave] })]);
    expect(visibleText(await cardOf(a, r.id))).toContain(`<@${carol}> (for <@${dave}>)`);
    const approved = audit(a, 'approve').at(-1)!;
    expect(approved).toMatchObject({ actor: carol, details: { for: [dave] } });
    // Dave keeps access, but Carol's approval is his vote too.
    expect((await approve(a, dave, r)).approvals).toHaveLength(1);
    expect((await approve(a, carol, r)).approvals).toHaveLength(1);
    // Erin's completes it: sent.
    await approve(a, erin, r);
    await until('sent', () => a.app.deps.withdrawals.get(r.id)!.state === 'completed');
  }, 60_000);

  it('a delegate never approves a request they made, nor one the person they stand in for made', async () => {
    const a = await start();
    await treasury(a, dave, `away until 3d delegate <@${carol}>`);
    const carols = await request(a, carol);
    expect((await approve(a, carol, carols)).approvals).toEqual([]);
    const daves = await request(a, dave);
    expect((await approve(a, carol, daves)).approvals).toEqual([]);
    // Nor is she asked to: the DM for Dave's request goes to Erin alone.
    await until('the DMs', () => asks(a, erin, daves).length === 1);
    expect(asks(a, carol, daves)).toEqual([]);
    // Erin may.
    expect((await approve(a, erin, daves)).approvals).toHaveLength(1);
  }, 60_000);

  it('a cycle or a chain of delegations is refused; an admin may set someone else’s, who is told; others may not', async () => {
    const a = await start();
    await treasury(a, dave, `away until 3d delegate <@${carol}>`);
    // Carol → Dave while Dave → Carol: a cycle.
    expect(await treasury(a, carol, `away until 2d delegate <@${dave}>`)).toContain('cannot stand in for each other');
    // Erin → Dave while Dave → Carol: a chain.
    expect(await treasury(a, erin, `away until 2d delegate <@${dave}>`)).toContain('one level only');
    // Carol stands in for Dave: her approvals cannot be handed on (a chain the other way).
    expect(await treasury(a, carol, `away until 2d delegate <@${erin}>`)).toContain('one level only');
    expect(a.app.deps.store.all(AWAY).map((r) => r.id)).toEqual([dave]);

    // Not an admin: Alice cannot set Carol away.
    expect(await treasury(a, alice, `away <@${carol}> until ${SOON}`)).toContain('Only an admin');
    // Erin (an admin) can: audited with both, and Carol is told.
    expect(await treasury(a, erin, `away <@${carol}> until ${SOON}`)).toContain(
      `<@${carol}> is away until ${SOON} 00:00 UTC`,
    );
    expect(audit(a, 'away_set').at(-1)).toMatchObject({ actor: erin, subject: carol });
    await a.app.deps.outbox.drain(5000);
    expect(
      a.fake
        .channel(a.fake.dmChannel(carol))
        .map((m) => m.text ?? '')
        .join('\n'),
    ).toContain(`<@${erin}> set you as away until ${SOON} 00:00 UTC`);
    // Back: Dave's delegation ends, audited.
    expect(await treasury(a, dave, 'back')).toContain('Welcome back');
    expect(audit(a, 'away_back')).toHaveLength(1);
    expect(await treasury(a, dave, 'back')).toContain('You are not away');
    // A bad date says how to write one.
    expect(await treasury(a, dave, 'away until next week')).toContain('is not a date');
    // What was typed is outside text: escaped before it reaches mrkdwn.
    const echoed = await treasury(a, dave, 'away until <!channel>');
    expect(echoed).toContain('is not a date');
    expect(echoed).not.toContain('<!channel>');
  }, 60_000);

  it('whoever named no delegate still counts as an approver who is away: /treasury pending says so, and who stands in for the others', async () => {
    const a = await start();
    await treasury(a, erin, 'away until 3d');
    await treasury(a, dave, `away until 3d delegate <@${carol}>`);
    await request(a, alice);
    const pending = await treasury(a, alice, 'pending');
    expect(pending).toMatch(new RegExp(`<@${erin}> is away until [^;]* \\(nobody stands in\\)`));
    expect(pending).toMatch(new RegExp(`<@${dave}> is away until [^;]* \\(<@${carol}> approves for them\\)`));
  }, 60_000);

  it('a delegate must be an approver, whether named by the person or an admin; every delegation set or ended is told to the admins and audited', async () => {
    const a = await start();
    const { bob } = USERS;
    // Bob is no approver: a hijacked account of Dave's (or an admin's) cannot hand him approval power.
    expect(await treasury(a, dave, `away until 3d delegate <@${bob}>`)).toContain(`<@${bob}> is not an approver`);
    expect(await treasury(a, erin, `away <@${dave}> until 3d delegate <@${bob}>`)).toContain(
      `<@${bob}> is not an approver`,
    );
    expect(a.app.deps.store.all(AWAY)).toEqual([]);
    expect(audit(a, 'away_set')).toEqual([]);
    // So Bob is never asked, and his click counts for nobody.
    const big = await request(a, alice, '20000');
    await until('the DMs', () => asks(a, erin, big).length === 1);
    expect(asks(a, bob, big)).toEqual([]);
    expect((await approve(a, bob, big)).approvals).toEqual([]);

    // An approver may be named: the admin (Erin) is told by DM, and again when it ends; both audited.
    const erinsDms = () => a.fake.channel(a.fake.dmChannel(erin)).map((m) => m.text ?? '');
    await treasury(a, dave, `away until 3d delegate <@${carol}>`);
    await a.app.deps.outbox.drain(5000);
    expect(erinsDms().filter((t) => t.includes(`<@${carol}> approves withdrawals in their place`))).toHaveLength(1);
    expect(audit(a, 'away_set')).toEqual([
      expect.objectContaining({ actor: dave, details: expect.objectContaining({ delegate: carol }) }),
    ]);
    await treasury(a, dave, 'back');
    await a.app.deps.outbox.drain(5000);
    expect(
      erinsDms().filter((t) => t.includes(`<@${carol}> no longer approves withdrawals in their place`)),
    ).toHaveLength(1);
    expect(audit(a, 'away_back')).toEqual([
      expect.objectContaining({ actor: dave, details: expect.objectContaining({ delegate: carol }) }),
    ]);
  }, 60_000);

  it('one vote fills one named place: a delegate named in the tier too does not fill their delegator’s place as well', async () => {
    const a = await start(
      parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people: { requesters: [${alice}], approvers: [${carol}, ${dave}, ${erin}], admins: [${erin}] }
withdrawals:
  expires_after: 2h
  tiers:
    default:
      - { approvals: 2, must_include: [${erin}, ${dave}] }
`),
    );
    await treasury(a, dave, `away until 3d delegate <@${erin}>`);
    const r = await request(a, alice);
    const once = await approve(a, erin, r);
    expect(once.approvals).toEqual([expect.objectContaining({ user: erin, for: [dave] })]);
    // Carol fills neither named place: the last slot is still reserved, so her approval is refused.
    expect((await approve(a, carol, r)).approvals).toHaveLength(1);
    expect(a.app.deps.withdrawals.get(r.id)!.state).toBe('pending');
    // Nor is the request complete on Erin's one vote: the card still names a place to fill.
    expect(visibleText(await cardOf(a, r.id))).toMatch(/must include/);
  }, 60_000);

  it('a delegate and the person they stand in for approving at the same moment: one vote is counted', async () => {
    const a = await start();
    await treasury(a, dave, `away until 3d delegate <@${carol}>`);
    const r = await request(a, alice);
    // Both pass the checks made before the commit; the decider, inside each commit, counts one.
    const outcomes = await Promise.all([
      a.app.deps.withdrawals.approve(r.id, carol),
      a.app.deps.withdrawals.approve(r.id, dave),
    ]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.find((o) => !o.ok)).toMatchObject({ reason: 'already_approved' });
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(1);
    expect(a.app.deps.withdrawals.get(r.id)!.state).toBe('pending');
  }, 60_000);
});
