/**
 * Step-up codes end to end: signed Slack requests to the real Bolt receiver, the recording
 * fake Slack (views, files, messages), the sandbox wallet service, and a clock the test moves.
 * Codes are computed here from the secret the modal showed (and that the store holds sealed).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parsePolicy } from '../../src/policy/load.js';
import { codeAt, ENROLMENTS, groupedSecret, resolveSecretsKey } from '../../src/stepup/index.js';
import { open } from '../../src/stepup/seal.js';
import { openStore } from '../../src/store/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { startFakeSlack, type FakeMessage } from '../helpers/fake-slack.js';
import { eventCallback, sendToBolt, type SlackRequestBody } from '../helpers/slack-requests.js';
import {
  CHANNELS,
  FINANCE_GROUP,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  visibleText,
  type TestApp,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const INVALID = 'That code is not valid. Type the current code from your authenticator app.';
// Approving above 500 USDT needs a code; 800 USDT is still a one-approval tier.
const POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  step_up_above: { USDT: 500 }\n',
  ),
);

/** The app's clock: real time plus what the test has moved it forward (kept across restarts in a test: time never goes back). */
let offset = 0;
const clock = () => Date.now() + offset;

let t: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  offset = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function app(
  o: { key?: string; previous?: string; dataDir?: string; policy?: typeof POLICY } = {},
): Promise<TestApp> {
  t = await startTestApp({
    policy: o.policy ?? POLICY,
    now: clock,
    ...(o.dataDir ? { dataDir: o.dataDir } : {}),
    env: {
      SECRETS_KEY: o.key ?? randomBytes(32).toString('base64'),
      ...(o.previous ? { SECRETS_KEY_PREVIOUS: o.previous } : {}),
    },
  });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}

/** A code of a step no earlier code used: the clock moves on one step first. */
function freshCode(secret: string): string {
  offset += 30_000;
  return codeAt(secret, clock());
}
/** Six digits that are no code of the current step or its neighbours. */
function wrongCode(secret: string): string {
  const near = new Set([-30_000, 0, 30_000].map((d) => codeAt(secret, clock() + d)));
  for (let n = 0; ; n++) {
    const c = String(n).padStart(6, '0');
    if (!near.has(c)) return c;
  }
}

const views = (a: TestApp, callbackId: string) => a.fake.views().filter((v) => v.callback_id === callbackId);
const blockText = (v: { blocks: unknown[] }) => visibleText({ blocks: v.blocks });
const allChannelText = (a: TestApp) =>
  [
    CHANNELS.approvals,
    CHANNELS.alerts,
    CHANNELS.command,
    ...[USERS.carol, USERS.dave, USERS.erin, USERS.alice].map((u) => a.fake.dmChannel(u)),
  ]
    .flatMap((c) => a.fake.channel(c))
    .map((m) => JSON.stringify(m))
    .join('\n');
const audit = (a: TestApp) => a.app.deps.store.all(AUDIT_COLLECTION);

async function openHome(a: TestApp, user: string) {
  await sendToBolt(
    a.app.url,
    a.signingSecret,
    eventCallback({ event: { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' } }),
  );
  return until('the Home tab', () => a.fake.homeTab(user));
}

/** Enrols `user` from the App Home; returns the secret read from the modal and the QR file id. */
async function enrol(a: TestApp, user: string): Promise<{ secret: string; fileId: string; viewId: string }> {
  const before = views(a, 'stepup_enrol').length;
  const { res } = await a.click(user, { actionId: 'home_stepup_enrol', value: 'enrol' });
  expect(res.status).toBe(200);
  const view = await until('the enrolment modal with its QR image', () =>
    views(a, 'stepup_enrol')
      .slice(before)
      .find((v) => v.blocks.some((b) => (b as { type: string }).type === 'image')),
  );
  const image = view.blocks.find((b) => (b as { type: string }).type === 'image') as { slack_file: { id: string } };
  const secret = /`([A-Z2-7 ]+)`/.exec(blockText(view))![1]!.replace(/ /g, '');
  return { secret, fileId: image.slack_file.id, viewId: view.id };
}

async function confirmEnrolment(a: TestApp, user: string, code: string) {
  // As Slack sends it: the whole modal, key text included, comes back with the submission.
  const view = views(a, 'stepup_enrol').at(-1);
  return a.submitView(user, {
    callbackId: 'stepup_enrol',
    ...(view ? { viewId: view.id, blocks: view.blocks } : {}),
    values: { stepup_enrol_code: { code: { type: 'plain_text_input', value: code } } },
  });
}

async function enrolled(a: TestApp, user: string): Promise<string> {
  const { secret } = await enrol(a, user);
  const res = await confirmEnrolment(a, user, freshCode(secret));
  expect(res.body).toBe('');
  expect(a.app.deps.stepUp.status(user).state).toBe('active');
  return secret;
}

async function request(a: TestApp, amount: string): Promise<{ r: WithdrawalRequest; card: FakeMessage }> {
  const known = new Set(a.app.deps.withdrawals.list().map((r) => r.id));
  const { responseUrl } = await a.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} invoice 7`, USERS.alice);
  await a.replies(responseUrl);
  const r = await until('the request', () => a.app.deps.withdrawals.list().find((x) => !known.has(x.id)));
  const card = await until('its card', () => {
    const posted = a.app.deps.outbox.message(`card:${r.id}`) ?? a.app.deps.outbox.message(r.id);
    return a.fake
      .channel(CHANNELS.approvals)
      .find((m) => m.ts === posted?.ts || visibleText(m as never).includes(r.merchantReference.slice(0, 8)));
  });
  return { r, card };
}

async function clickApprove(a: TestApp, user: string, r: WithdrawalRequest, card: FakeMessage) {
  return a.click(
    user,
    { actionId: 'wd_approve', value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
  );
}

function submitCode(a: TestApp, user: string, r: WithdrawalRequest, code: string) {
  return a.submitView(user, {
    callbackId: 'withdraw_step_up',
    privateMetadata: JSON.stringify({ id: r.id }),
    values: { stepup_code: { code: { type: 'plain_text_input', value: code } } },
  });
}
const inlineError = (res: { json: unknown }) =>
  (res.json as { response_action?: string; errors?: Record<string, string> } | undefined)?.errors?.stepup_code;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('step-up codes: enrolment and approving', () => {
  it('enrols from the App Home with an unshared QR image, then a large approval needs a code and a small one does not', async () => {
    const key = randomBytes(32);
    const a = await app({ key: key.toString('hex') });
    const home = await openHome(a, USERS.carol);
    expect(JSON.stringify(home.blocks)).toContain('Set up authenticator codes');
    expect(visibleText({ blocks: home.blocks })).toContain('above 500.00 USDT');

    const { secret, fileId } = await enrol(a, USERS.carol);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // Uploaded to no channel: only the modal shows it.
    const completes = a.fake.calls('files.completeUploadExternal');
    expect(completes).toHaveLength(1);
    expect(completes[0]!.args.channel_id).toBeUndefined();
    expect(completes[0]!.args.channels).toBeUndefined();
    expect(a.fake.files().find((f) => f.id === fileId)?.channel).toBeUndefined();
    // Sealed at rest under the key we gave; the modal showed the same secret.
    const rec = a.app.deps.store.get(ENROLMENTS, USERS.carol)!;
    expect(rec.status).toBe('pending');
    expect(open(key, rec.secret, USERS.carol)).toBe(secret);

    // Not active before a first valid code; a wrong one is shown next to the field.
    expect(inlineErrorOf(await confirmEnrolment(a, USERS.carol, wrongCode(secret)))).toBe(INVALID);
    expect(inlineErrorOf(await confirmEnrolment(a, USERS.carol, '12ab'))).toBe(INVALID);
    expect(a.app.deps.stepUp.status(USERS.carol).state).toBe('pending');
    const ok = await confirmEnrolment(a, USERS.carol, freshCode(secret));
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('');
    expect(a.app.deps.stepUp.status(USERS.carol).state).toBe('active');
    // The QR image is deleted once confirmed.
    await until('the QR image deleted', () => a.fake.calls('files.delete').some((c) => c.args.file === fileId));
    // The admins hear of it (a hijacked Slack account could enrol its own authenticator), without any secret.
    const told = await until('the enrolment notice to the admins', () =>
      a.fake.channel(CHANNELS.alerts).find((m) => /set up authenticator codes/.test(m.text ?? '')),
    );
    expect(told.text).toContain(`<@${USERS.carol}>`);
    expect(told.text).toContain(`<@${USERS.erin}>`);
    expect(told.text).not.toContain(secret);

    // A large request: Approve opens the code modal and records nothing yet.
    const large = await request(a, '800');
    await clickApprove(a, USERS.carol, large.r, large.card);
    const modal = await until('the code modal', () => views(a, 'withdraw_step_up')[0]);
    expect(blockText(modal)).toContain('800.00 USDT');
    expect(blockText(modal)).toContain('BSC');
    expect(blockText(modal)).toContain('0x222222…222222');
    expect(a.app.deps.withdrawals.get(large.r.id)!.approvals).toHaveLength(0);
    // The plain path cannot approve it.
    expect(await a.app.deps.withdrawals.approve(large.r.id, USERS.carol)).toMatchObject({
      ok: false,
      reason: 'step_up_required',
    });
    // With a valid code it is approved and sent.
    const sent = await submitCode(a, USERS.carol, large.r, freshCode(secret));
    expect(sent.body).toBe('');
    await until('sent', () => a.app.deps.withdrawals.get(large.r.id)!.state === 'completed');
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);

    // A small one needs no code: the button approves at once.
    const small = await request(a, '100');
    const modalsBefore = views(a, 'withdraw_step_up').length;
    await clickApprove(a, USERS.carol, small.r, small.card);
    await until('the small one sent', () => a.app.deps.withdrawals.get(small.r.id)!.state === 'completed');
    expect(views(a, 'withdraw_step_up')).toHaveLength(modalsBefore);

    const actions = audit(a).map((e) => e.action);
    for (const action of ['stepup_enrol_start', 'stepup_wrong_code', 'stepup_enrolled', 'stepup_verified'])
      expect(actions).toContain(action);
    expect(audit(a).find((e) => e.action === 'approve' && e.subject === large.r.id)?.details).toMatchObject({
      stepUp: 'verified',
    });

    // The secret is in no channel message, no log line, and not on disk in the clear.
    await a.app.deps.outbox.drain();
    expect(allChannelText(a)).not.toContain(secret);
    expect(a.logs()).not.toContain(secret);
    expect(a.logs()).not.toContain(groupedSecret(secret));
    const onDisk = filesUnder(a.dataDir)
      .map((f) => readFileSync(f, 'latin1'))
      .join('\n');
    expect(onDisk).toContain('stepup_enrolments');
    expect(onDisk).not.toContain(secret);
  });

  it('a wrong code is shown inline and approves nothing; a used code is refused even within its window', async () => {
    const a = await app();
    const secret = await enrolled(a, USERS.carol);
    const first = await request(a, '800');
    await clickApprove(a, USERS.carol, first.r, first.card);
    // A wrong code counts towards the lockout, and says how many tries are left; a malformed one is not counted.
    expect(inlineError(await submitCode(a, USERS.carol, first.r, wrongCode(secret)))).toBe(
      `${INVALID} 4 tries left before your codes are locked for 15 minutes.`,
    );
    expect(inlineError(await submitCode(a, USERS.carol, first.r, 'abcdef'))).toBe(INVALID);
    expect(a.app.deps.withdrawals.get(first.r.id)!.approvals).toHaveLength(0);
    const code = freshCode(secret);
    expect((await submitCode(a, USERS.carol, first.r, code)).body).toBe('');
    await until('sent', () => a.app.deps.withdrawals.get(first.r.id)!.state === 'completed');

    const second = await request(a, '800');
    const replay = await submitCode(a, USERS.carol, second.r, code);
    expect(inlineError(replay)).toMatch(/already used.*4 tries left/);
    expect(a.app.deps.withdrawals.get(second.r.id)!.approvals).toHaveLength(0);
    expect(audit(a).some((e) => e.action === 'stepup_wrong_code' && e.details.why === 'replayed')).toBe(true);
  });

  it('five wrong codes in a row lock step-up for 15 minutes and tell the admins once; afterwards it works again', async () => {
    const a = await app();
    const secret = await enrolled(a, USERS.dave);
    const { r, card } = await request(a, '800');
    for (const left of ['4 tries', '3 tries', '2 tries', '1 try'])
      expect(inlineError(await submitCode(a, USERS.dave, r, wrongCode(secret)))).toBe(
        `${INVALID} ${left} left before your codes are locked for 15 minutes.`,
      );
    // Locked: says until when, in UTC and from now.
    const locking = inlineError(await submitCode(a, USERS.dave, r, wrongCode(secret)));
    const lockEnd = String(audit(a).find((e) => e.action === 'stepup_locked')?.details.until);
    const lockedUntil = lockEnd.slice(0, 16).replace('T', ' ');
    expect(locking).toBe(
      `Your authenticator codes are locked after 5 wrong codes in a row, until ${lockedUntil} UTC (in 15 minutes). The admins have been told.`,
    );
    // Locked: even a valid code is refused, and another wrong one does not tell the admins again.
    expect(inlineError(await submitCode(a, USERS.dave, r, freshCode(secret)))).toMatch(/locked/);
    expect(inlineError(await submitCode(a, USERS.dave, r, wrongCode(secret)))).toMatch(/locked/);
    const { responseUrl } = await clickApprove(a, USERS.dave, r, card);
    await a.repliesUntil(responseUrl, (b) => new RegExp(`locked .*until ${lockedUntil} UTC`).test(String(b.text)));
    await a.app.deps.outbox.drain();
    const told = a.fake.channel(CHANNELS.alerts).filter((m) => /locked/.test(m.text ?? ''));
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toContain(`<@${USERS.dave}>`);
    expect(told[0]!.text).toContain(`<@${USERS.erin}>`);
    expect(audit(a).filter((e) => e.action === 'stepup_locked')).toHaveLength(1);
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(0);

    offset += 15 * 60_000;
    expect((await submitCode(a, USERS.dave, r, freshCode(secret))).body).toBe('');
    await until('sent', () => a.app.deps.withdrawals.get(r.id)!.state === 'completed');
  });
});

describe('step-up codes: who may, and resets', () => {
  it("an admin's own set-up notice asks the other admins, never that admin; with no other admin it says so", async () => {
    const setUpNotice = (a: TestApp) =>
      until('the set-up notice', () =>
        a.fake.channel(CHANNELS.alerts).find((m) => /set up authenticator codes/.test(m.text ?? '')),
      );
    const mentions = (text: string, user: string) => text.split(`<@${user}>`).length - 1;

    // Erin is the only admin: nobody is asked to reset Erin's codes, least of all Erin.
    let a = await app();
    await enrolled(a, USERS.erin);
    let told = (await setUpNotice(a)).text ?? '';
    expect(mentions(told, USERS.erin)).toBe(1);
    expect(told).not.toContain('/treasury stepup reset');
    expect(told).toContain('the treasury policy names no other admin');
    await t?.stop();
    t = undefined;

    // With Dave as a second admin, Dave is the one asked.
    const twoAdmins = parsePolicy(
      TEST_POLICY_YAML.replace(`admins: [${USERS.erin}]`, `admins: [${USERS.erin}, ${USERS.dave}]`).replace(
        '  daily_limit: { USDT: 50000 }\n',
        '  daily_limit: { USDT: 50000 }\n  step_up_above: { USDT: 500 }\n',
      ),
    );
    a = await app({ policy: twoAdmins });
    await enrolled(a, USERS.erin);
    told = (await setUpNotice(a)).text ?? '';
    expect(mentions(told, USERS.erin)).toBe(1);
    expect(told).toContain('/treasury stepup reset');
    expect(told).toMatch(new RegExp(`check their account\\. <@${USERS.dave}>$`));
  });

  it('an approver without codes is told how to set them up; the requester is told the rule, not asked for a code', async () => {
    const a = await app();
    const { r, card } = await request(a, '800');
    const { responseUrl } = await clickApprove(a, USERS.carol, r, card);
    const [reply] = await a.repliesUntil(responseUrl, (b) => /Home tab/.test(String(b.text)));
    expect(String(reply!.text)).toMatch(/not set one up yet.*Home tab.*Set up authenticator codes/);
    expect(views(a, 'withdraw_step_up')).toHaveLength(0);
    // The requester is told the rule that stops them, not asked for a code.
    const own = await clickApprove(a, USERS.alice, r, card);
    await a.repliesUntil(own.responseUrl, (b) => /your own withdrawal request/.test(String(b.text)));
    expect(views(a, 'withdraw_step_up')).toHaveLength(0);
    // From the App Home's Approve as well.
    await a.click(USERS.carol, { actionId: 'home_approve', value: r.id });
    await until('the Home notice', () =>
      /not set one up yet/.test(JSON.stringify(a.fake.homeTab(USERS.carol)?.blocks ?? [])),
    );
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(0);
  });

  it('the App Home Approve opens the code modal for a large request too', async () => {
    const a = await app();
    const secret = await enrolled(a, USERS.carol);
    const { r } = await request(a, '800');
    await a.click(USERS.carol, { actionId: 'home_approve', value: r.id });
    await until('the code modal', () => views(a, 'withdraw_step_up')[0]);
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(0);
    expect((await submitCode(a, USERS.carol, r, freshCode(secret))).body).toBe('');
    await until('sent', () => a.app.deps.withdrawals.get(r.id)!.state === 'completed');
  });

  it('an admin resets a person: they are told by DM, the old codes stop working, they must enrol again; nobody else can', async () => {
    const a = await app();
    const secret = await enrolled(a, USERS.carol);
    await enrolled(a, USERS.erin);

    const notAdmin = await a.command('/treasury', `stepup reset <@${USERS.carol}|carol>`, USERS.dave);
    const [refused] = await a.replies(notAdmin.responseUrl);
    expect(String(refused!.text)).toMatch(/admin/i);
    const own = await a.command('/treasury', `stepup reset <@${USERS.erin}>`, USERS.erin);
    expect(String((await a.replies(own.responseUrl))[0]!.text)).toMatch(/cannot reset your own/);
    const bad = await a.command('/treasury', 'stepup reset carol', USERS.erin);
    expect(String((await a.replies(bad.responseUrl))[0]!.text)).toMatch(/stepup reset @person/);
    expect(a.app.deps.stepUp.status(USERS.carol).state).toBe('active');

    const done = await a.command('/treasury', `stepup reset <@${USERS.carol}|carol>`, USERS.erin);
    expect(String((await a.replies(done.responseUrl))[0]!.text)).toMatch(/codes of <@U0CAROL01> are reset/);
    expect(a.app.deps.stepUp.status(USERS.carol).state).toBe('none');
    // Reset again: nothing to reset, the person named as Slack shows them.
    const none = await a.command('/treasury', `stepup reset <@${USERS.carol}|carol>`, USERS.erin);
    expect((await a.replies(none.responseUrl))[0]!.text).toBe(
      ':no_entry: <@U0CAROL01> has no authenticator codes set up: there is nothing to reset.',
    );
    await until('the DM', () =>
      a.fake.channel(a.fake.dmChannel(USERS.carol)).some((m) => /reset your authenticator codes/.test(m.text ?? '')),
    );
    expect(audit(a).find((e) => e.action === 'stepup_reset')).toMatchObject({
      actor: USERS.erin,
      subject: USERS.carol,
    });

    const { r, card } = await request(a, '800');
    expect(inlineError(await submitCode(a, USERS.carol, r, freshCode(secret)))).toMatch(
      /not set up authenticator codes/,
    );
    const { responseUrl } = await clickApprove(a, USERS.carol, r, card);
    await a.repliesUntil(responseUrl, (b) => /Set up authenticator codes/.test(String(b.text)));
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(0);
    // Enrolling again gives a new secret.
    const again = await enrolled(a, USERS.carol);
    expect(again).not.toBe(secret);
  });

  it('closing the enrolment modal drops the pending set-up and deletes its QR image', async () => {
    const a = await app();
    const { fileId, viewId } = await enrol(a, USERS.carol);
    const payload = {
      type: 'view_closed',
      team: { id: 'T0TEAM0001', domain: 'test' },
      user: { id: USERS.carol, username: 'carol', name: 'carol', team_id: 'T0TEAM0001' },
      api_app_id: 'A0APP00001',
      view: { id: viewId, type: 'modal', callback_id: 'stepup_enrol', private_metadata: '', state: { values: {} } },
      is_cleared: false,
    };
    const body: SlackRequestBody = {
      body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      contentType: 'application/x-www-form-urlencoded',
      payload,
    };
    expect((await sendToBolt(a.app.url, a.signingSecret, body)).status).toBe(200);
    await until('the QR image deleted', () => a.fake.calls('files.delete').some((c) => c.args.file === fileId));
    expect(a.app.deps.stepUp.status(USERS.carol).state).toBe('none');
  });
});

describe('the QR image', () => {
  it('is deleted however long Slack refuses, across a restart: the deletion is kept until it is done', async () => {
    const fake = await startFakeSlack({ usergroups: { [FINANCE_GROUP]: [USERS.groupMember] } });
    const dataDir = mkdtempSync(join(tmpdir(), 'stepup-qr-'));
    dirs.push(dataDir);
    const key = randomBytes(32).toString('base64');
    const start = async () => {
      t = await startTestApp({ policy: POLICY, now: clock, fake, dataDir, env: { SECRETS_KEY: key } });
      return t;
    };
    try {
      const a = await start();
      fake.setGate((method) => (method === 'files.delete' ? { status: 500 } : undefined));
      const { secret, fileId } = await enrol(a, USERS.carol);
      expect((await confirmEnrolment(a, USERS.carol, freshCode(secret))).status).toBe(200);
      await until('a refused deletion', () => fake.calls('files.delete').some((c) => c.args.file === fileId));
      expect(fake.files().some((f) => f.id === fileId)).toBe(true);
      await a.stop();
      t = undefined;

      fake.setGate(undefined);
      await start();
      await until('the QR image deleted after the restart', () => !fake.files().some((f) => f.id === fileId));
    } finally {
      await t?.stop();
      t = undefined;
      await fake.close();
    }
  });
});

describe('SECRETS_KEY', () => {
  it('a different key does not crash the app: the person is told to have their codes reset, and the log says why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stepup-key-'));
    dirs.push(dataDir);
    const first = await app({ dataDir, key: randomBytes(32).toString('hex') });
    const secret = await enrolled(first, USERS.carol);
    await first.stop();
    t = undefined;

    const a = await app({ dataDir, key: randomBytes(32).toString('hex') });
    expect(a.logs()).toContain('SECRETS_KEY does not open the stored authenticator secrets');
    const { r } = await request(a, '800');
    const res = await submitCode(a, USERS.carol, r, freshCode(secret));
    expect(res.status).toBe(200);
    expect(inlineError(res)).toMatch(/encryption key has changed.*reset/);
    expect(a.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(0);
    expect(a.logs()).not.toContain(secret);
  });

  it('rotates: with the old key as SECRETS_KEY_PREVIOUS the secrets are re-encrypted at start, and codes keep working', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stepup-rotate-'));
    dirs.push(dataDir);
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const first = await app({ dataDir, key: oldKey.toString('hex') });
    const secret = await enrolled(first, USERS.carol);
    await first.stop();
    t = undefined;

    const rotated = await app({ dataDir, key: newKey.toString('base64'), previous: oldKey.toString('hex') });
    const rec = rotated.app.deps.store.get(ENROLMENTS, USERS.carol)!;
    expect(open(newKey, rec.secret, USERS.carol)).toBe(secret);
    expect(audit(rotated).some((e) => e.action === 'stepup_rekeyed' && e.details.people === 1)).toBe(true);
    await rotated.stop();
    t = undefined;

    // The old key can now go: the new one alone opens it.
    const a = await app({ dataDir, key: newKey.toString('base64') });
    expect(a.logs()).not.toContain('SECRETS_KEY does not open');
    const { r } = await request(a, '800');
    expect((await submitCode(a, USERS.carol, r, freshCode(secret))).body).toBe('');
    await until('sent', () => a.app.deps.withdrawals.get(r.id)!.state === 'completed');
  });

  it('is required with a real Slack workspace, checked for its format, and never echoed', async () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    const bad = 'not-a-key-but-a-secret-value';
    let err: unknown;
    try {
      loadConfig({ ...slack, SECRETS_KEY: bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.join('\n')).toMatch(/^SECRETS_KEY: must be 32 random bytes/);
    expect((err as ConfigError).message).not.toContain(bad);

    const dir = mkdtempSync(join(tmpdir(), 'stepup-store-'));
    dirs.push(dir);
    const store = await openStore({ dir });
    try {
      await expect(resolveSecretsKey(loadConfig(slack), store)).rejects.toThrow(
        /SECRETS_KEY: required with a real Slack workspace/,
      );
      // Against a Slack stand-in on loopback (tests, the local workspace) one is generated once and kept.
      const local = loadConfig({ ...slack, SLACK_API_URL: 'http://127.0.0.1:9/api/' });
      const k1 = await resolveSecretsKey(local, store);
      expect(k1).toHaveLength(32);
      expect(await resolveSecretsKey(local, store)).toEqual(k1);
    } finally {
      await store.close();
    }
  });
});

function inlineErrorOf(res: { json: unknown }) {
  return (res.json as { errors?: Record<string, string> } | undefined)?.errors?.stepup_enrol_code;
}
