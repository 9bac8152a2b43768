/**
 * Governed policy end to end: the whole app on a real policy file in a temp dir that the test
 * rewrites, signed button clicks from Slack, the fake Slack Web API, the sandbox over HTTP and
 * a controllable clock. The file is checked with `checkPolicyFile()` (what the watcher calls),
 * so nothing depends on file-system timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { utcMinute } from '../../src/format/time.js';
import {
  actions,
  buttons,
  changeMessages,
  decideChange as decide,
  gov,
  GOVERNED_POLICY as POLICY,
  proposeFile,
  textOf,
} from '../helpers/governed-policy.js';
import { CHANNELS, TEST_POLICY_YAML, USERS, startTestApp, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const NEW_DEST = '0xabcdef0000000000000000000000000000000001';
const T0 = Date.parse('2030-03-01T09:00:00.000Z');
const HOUR = 3_600_000;

let t: TestApp | undefined;
let dir: string | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * The app's clock: T0 when a test starts, then running (the outbox paces by it), and moved
 * forward by the tests (cooling-off).
 */
const clock = {
  offset: 0,
  set now(at: number) {
    this.offset = at - Date.now();
  },
  get now(): number {
    return Date.now() + this.offset;
  },
};
/** When the address added by the change in force becomes usable, as the messages write it. */
const usableText = (a: TestApp) => utcMinute(Date.parse(gov(a).inForce()!.approvedAt) + 24 * HOUR);

async function start(text = POLICY, dataDir?: string): Promise<TestApp> {
  dir ??= mkdtempSync(join(tmpdir(), 'governed-'));
  const file = join(dir, 'policy.yml');
  if (!dataDir) writeFileSync(file, text);
  t = await startTestApp({ policyFile: file, now: () => clock.now, ...(dataDir ? { dataDir } : {}) });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}
const writePolicy = (text: string) => writeFileSync(join(dir!, 'policy.yml'), text);

const TIER2_TO_1 = (text: string) => text.replace('{ max: 10000, approvals: 2 }', '{ max: 10000, approvals: 1 }');

const proposed = (a: TestApp, text: string) => proposeFile(a, join(dir!, 'policy.yml'), text);

async function approveChange(a: TestApp, text: string) {
  const m = await proposed(a, text);
  expect(await decide(a, USERS.erin, 'approve', m)).toContain('recorded');
  expect(await decide(a, USERS.dave, 'approve', m)).toContain('in force');
}

describe('governed policy: changes of the file', () => {
  it('a change cannot lower its own bar: one that asks for a single admin still needs the two of the policy in force', async () => {
    clock.now = T0;
    const a = await start();
    const m = await proposed(a, `${POLICY}\npolicy_changes: { approvals: 1 }\n`);
    expect(await decide(a, USERS.erin, 'approve', m)).toContain('needs another admin');
    expect(a.app.deps.policy.current().policy_changes.approvals).toBeUndefined();
    expect(await decide(a, USERS.dave, 'approve', m)).toContain('in force');
    expect(a.app.deps.policy.current().policy_changes.approvals).toBe(1);
  });

  it('accepts the first policy (audited), then proposes a change in plain words; applies it on the second admin', async () => {
    clock.now = T0;
    const a = await start();
    expect(gov(a).inForce()).toMatchObject({ approvedBy: ['system'] });
    expect(actions(a)).toContain('policy_accept_first');

    const m = await proposed(
      a,
      TIER2_TO_1(POLICY).replace('daily_limit: { USDT: 50000 }', 'daily_limit: { USDT: 80000 }'),
    );
    // The old policy is still enforced.
    expect(a.app.deps.policy.current().withdrawals.tiers.default![1]!.approvals).toBe(2);
    const shown = textOf(m);
    expect(shown).toContain('Waiting for 2 admin approvals');
    expect(shown).toContain('tier 2 (up to 10,000): approvals 2 → 1');
    expect(shown).toContain('daily limit USDT: 50,000 → 80,000');
    expect(buttons(m).map((b) => b.action_id)).toEqual(['policy_change_approve', 'policy_change_reject']);

    // Someone who is not an admin: refused, and audited.
    expect(await decide(a, USERS.carol, 'approve', m)).toContain('Only treasury admins');
    expect(actions(a)).toContain('policy_approve_refused');

    expect(await decide(a, USERS.erin, 'approve', m)).toContain('needs another admin');
    // The same admin again (a double click) counts once.
    expect(await decide(a, USERS.erin, 'approve', m)).toContain('already approved');
    expect(a.app.deps.policy.current().withdrawals.tiers.default![1]!.approvals).toBe(2);
    await until('the message shows the first approval', () =>
      textOf(changeMessages(a)[0]!).includes(`approved so far by <@${USERS.erin}>`),
    );
    const { responseUrl } = await a.command('/treasury', 'policy', USERS.erin);
    const [status] = await a.replies(responseUrl);
    expect(visibleText(status!)).toContain('Pending change');
    expect(visibleText(status!)).toContain(`approved so far by <@${USERS.erin}>`);

    expect(await decide(a, USERS.dave, 'approve', m)).toContain('the new policy is in force');
    expect(a.app.deps.policy.current().withdrawals.tiers.default![1]!.approvals).toBe(1);
    expect(a.app.deps.policy.current().withdrawals.daily_limit.USDT).toBe('80000');
    expect(gov(a).inForce()).toMatchObject({ approvedBy: [USERS.erin, USERS.dave] });
    expect(actions(a)).toEqual(expect.arrayContaining(['policy_propose', 'policy_approve', 'policy_apply']));
    const done = await until('the message says applied, without buttons', () => {
      const x = changeMessages(a)[0]!;
      return textOf(x).includes('Applied') && !buttons(x).length ? x : undefined;
    });
    expect(textOf(done)).toContain(`<@${USERS.dave}>`);
    // A click after it applied changes nothing.
    expect(await decide(a, USERS.dave, 'reject', m)).toContain('no longer waiting');
  });

  it('any admin can reject; a newer file supersedes the pending change; an invalid file changes nothing and the admins are told', async () => {
    clock.now = T0;
    const a = await start();
    const first = await proposed(a, TIER2_TO_1(POLICY));
    const second = await proposed(a, POLICY.replace('mode: warn', 'mode: enforce'));
    await until('the first message says it was replaced', () =>
      textOf(changeMessages(a)[0]!).includes('Replaced: a newer version of the file replaced it'),
    );
    expect(await decide(a, USERS.erin, 'approve', first)).toContain('no longer waiting');
    expect(textOf(second)).toContain('allowlist mode: warn → enforce');

    expect(await decide(a, USERS.dave, 'reject', second)).toContain('You rejected');
    expect(a.app.deps.policy.current().withdrawals.allowlist.mode).toBe('warn');
    expect(actions(a)).toEqual(expect.arrayContaining(['policy_supersede', 'policy_reject']));
    await until('the message says rejected', () => textOf(changeMessages(a)[1]!).includes('Rejected by'));

    writePolicy('withdrawals: [not, a, policy');
    const r = await gov(a).checkPolicyFile();
    expect(r.kind).toBe('invalid');
    expect(a.app.deps.policy.current().withdrawals.allowlist.mode).toBe('warn');
    for (const admin of [USERS.erin, USERS.dave]) {
      const dm = await until('the admin is told', () => a.fake.channel(a.fake.dmChannel(admin))[0]);
      expect(dm.text).toContain('cannot be used, so nothing changed');
    }
    expect(actions(a)).toContain('policy_invalid');
    // The same bad file read again is not reported twice.
    expect((await gov(a).checkPolicyFile()).kind).toBe('unchanged');
  });

  it('watching the file: a saved change is proposed without anyone asking', async () => {
    clock.now = T0;
    dir = mkdtempSync(join(tmpdir(), 'governed-'));
    const file = join(dir, 'policy.yml');
    writeFileSync(file, POLICY);
    t = await startTestApp({ policyFile: file, now: () => clock.now, watchPolicyFile: true });
    writePolicy(TIER2_TO_1(POLICY));
    const m = await until('the change proposed by the watcher', () => changeMessages(t!)[0], 20_000);
    expect(textOf(m)).toContain('tier 2 (up to 10,000): approvals 2 → 1');
  });

  it('a file that schedules a job the app does not have is unusable: nothing is proposed', async () => {
    clock.now = T0;
    const a = await start();
    writePolicy(`${POLICY}\nschedule:\n  digset: "0 8 * * *"\n`);
    expect((await gov(a).checkPolicyFile()).kind).toBe('invalid');
    expect(changeMessages(a)).toHaveLength(0);
    const dm = await until('the admin is told', () => a.fake.channel(a.fake.dmChannel(USERS.erin))[0]);
    expect(dm.text).toContain('schedule.digset: there is no job of that name; did you mean digest?');
  });

  it('an unusable file when no admin is named as a user: the notice goes to the approvals channel', async () => {
    clock.now = T0;
    const a = await start(TEST_POLICY_YAML.replace(`admins: [${USERS.erin}]`, 'admins: [S0FINANCE]'));
    writePolicy('channels: { approvals: not-a-channel }');
    expect((await gov(a).checkPolicyFile()).kind).toBe('invalid');
    const notice = await until('the notice in the approvals channel', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => (m.text ?? '').includes('cannot be used, so nothing changed')),
    );
    expect(textOf(notice)).toContain('channels.approvals');
  });

  it('a restart keeps enforcing the approved policy, not the file on disk, and proposes the file', async () => {
    clock.now = T0;
    const dataDir = mkdtempSync(join(tmpdir(), 'governed-data-'));
    dir = mkdtempSync(join(tmpdir(), 'governed-'));
    const file = join(dir, 'policy.yml');
    try {
      writeFileSync(file, TIER2_TO_1(POLICY));
      t = await startTestApp({ policyFile: file, now: () => clock.now, dataDir });
      expect(t.app.deps.policy.current().withdrawals.tiers.default![1]!.approvals).toBe(1);
      await t.stop();
      // The file now says otherwise: the approved policy stays in force, the file is proposed.
      writeFileSync(file, POLICY);
      t = await startTestApp({ policyFile: file, now: () => clock.now, dataDir });
      const a = t;
      expect(a.app.deps.policy.current().withdrawals.tiers.default![1]!.approvals).toBe(1);
      expect(gov(a).inForce()).toMatchObject({ approvedBy: ['system'] });
      expect(gov(a).pending()?.lines).toEqual(['tier 2 (up to 10,000): approvals 1 → 2']);
      await until('the change is posted at start', () => changeMessages(a)[0]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

async function requestOneLine(a: TestApp, text: string, user: string = USERS.alice) {
  const { responseUrl } = await a.command('/withdraw', text, user);
  const [reply] = await a.replies(responseUrl);
  return visibleText(reply!);
}
const withNew = (text: string) =>
  text.replace(
    '      - { address: "0x1111111111111111111111111111111111111111", network: BSC, label: "Exchange hot wallet" }',
    `      - { address: "0x1111111111111111111111111111111111111111", network: BSC, label: "Exchange hot wallet" }\n      - { address: "${NEW_DEST}", network: BSC, label: "New desk" }`,
  );

describe('governed policy: allowlist cooling-off', () => {
  it('enforce: an address added by an approved change is refused until the cooling-off has passed', async () => {
    clock.now = T0;
    const enforce = POLICY.replace('mode: warn', 'mode: enforce');
    const a = await start(enforce);
    await approveChange(a, withNew(enforce));
    const refused = await requestOneLine(a, `100 USDT BSC ${NEW_DEST} ${CLIENT} invoice 7`);
    expect(refused).toContain(
      `allowlisted as New desk, but a newly approved address is usable only from ${usableText(a)}`,
    );
    expect(a.app.deps.withdrawals.list()).toHaveLength(0);
    clock.now = Date.parse(gov(a).inForce()!.approvedAt) + 24 * HOUR;
    const ok = await requestOneLine(a, `100 USDT BSC ${NEW_DEST} ${CLIENT} invoice 7`);
    expect(ok).toContain('Requested');
    expect(a.app.deps.withdrawals.list()[0]!.allowlist).toMatchObject({ status: 'listed', label: 'New desk' });
  });

  it('warn: flagged, and the card says from when it is usable', async () => {
    clock.now = T0;
    const a = await start();
    await approveChange(a, withNew(POLICY));
    await requestOneLine(a, `100 USDT BSC ${NEW_DEST} ${CLIENT} invoice 8`);
    const card = await until('the card', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => !(m.text ?? '').startsWith('Treasury policy change')),
    );
    expect(textOf(card)).toContain(`Allowlisted as New desk; usable from ${usableText(a)}`);
    expect(textOf(card)).toContain('still cooling off');
  });
});

describe('governed policy: requests judged under the policy in force', () => {
  it('a pending request when the tier is raised waits for the extra approval, then is sent once', async () => {
    clock.now = T0;
    const a = await start();
    await requestOneLine(a, `5000 USDT BSC ${NEW_DEST} ${CLIENT} invoice 9`);
    const card = await until('the card', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => !(m.text ?? '').startsWith('Treasury policy change')),
    );
    const id = a.app.deps.withdrawals.list()[0]!.id;
    const approve = async (user: string) => {
      const { responseUrl } = await a.click(
        user,
        { actionId: 'wd_approve', value: id },
        { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
      );
      return responseUrl;
    };
    await approve(USERS.carol);
    await until('1 approval', () => a.app.deps.withdrawals.get(id)!.approvals.length === 1);

    await approveChange(a, POLICY.replace('{ max: 10000, approvals: 2 }', '{ max: 10000, approvals: 3 }'));
    const r = await until('re-evaluated under the new tier', () => {
      const x = a.app.deps.withdrawals.get(id)!;
      return x.tier.approvals === 3 ? x : undefined;
    });
    expect(r.state).toBe('pending');
    expect(actions(a)).toContain('policy_recheck_waits');
    await until('the approvers are asked again in the thread', () =>
      a.fake
        .channel(CHANNELS.approvals)
        .find((m) => (m.text ?? '').includes('Back to waiting: the policy in force now needs 2 more approvals')),
    );

    await approve(USERS.dave);
    await until('2 approvals', () => a.app.deps.withdrawals.get(id)!.approvals.length === 2);
    expect(a.app.deps.withdrawals.get(id)!.state).toBe('pending');
    await approve(USERS.erin);
    const sent = await until('sent', () => {
      const x = a.app.deps.withdrawals.get(id)!;
      return x.state === 'completed' ? x : undefined;
    });
    const txs = a.app.sandbox!.transactions().filter((x) => x.reference === sent.merchantReference);
    expect(txs).toHaveLength(1);
  });

  it('a pending request whose tier now needs fewer approvals is approved and sent once when the change applies', async () => {
    clock.now = T0;
    const a = await start();
    await requestOneLine(a, `5000 USDT BSC ${NEW_DEST} ${CLIENT} invoice 10`);
    const card = await until('the card', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => !(m.text ?? '').startsWith('Treasury policy change')),
    );
    const id = a.app.deps.withdrawals.list()[0]!.id;
    await a.click(
      USERS.carol,
      { actionId: 'wd_approve', value: id },
      { channel: CHANNELS.approvals, message: { ts: card.ts, blocks: card.blocks } },
    );
    await until('1 approval', () => a.app.deps.withdrawals.get(id)!.approvals.length === 1);
    await approveChange(a, TIER2_TO_1(POLICY));
    const sent = await until('sent', () => {
      const x = a.app.deps.withdrawals.get(id)!;
      return x.state === 'completed' ? x : undefined;
    });
    expect(actions(a)).toContain('policy_recheck_approved');
    expect(a.app.sandbox!.transactions().filter((x) => x.reference === sent.merchantReference)).toHaveLength(1);
  });
});
