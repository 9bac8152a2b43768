/**
 * Issue 43 through the running app: a misspelt key is refused at every entry of a policy (the
 * file at start, a changed file picked up while running, a change proposed to the admins in
 * Slack), at the top level, two levels down and in a list item, each with its path and the key
 * meant; and nothing of the policy in force is lost. The real app on a real policy file, the
 * fake Slack Web API, signed button clicks; nothing of ours is mocked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { policyHash } from '../../src/policy/governance/file-source.js';
import { IN_FORCE_ID, POLICY_IN_FORCE } from '../../src/policy/governance/types.js';
import { parseApprovedPolicy, PolicyError } from '../../src/policy/load.js';
import { openStore } from '../../src/store/index.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import {
  actions,
  changeMessages,
  decideChange,
  gov,
  GOVERNED_POLICY as POLICY,
  proposeFile,
  textOf,
} from '../helpers/governed-policy.js';
import { USERS, startTestApp, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

/** Where the key is, the misspelling in the file, and the line that must name it. */
const CASES: Array<[string, (text: string) => string, string]> = [
  [
    'the top level',
    (text) => text.replace('\nwithdrawals:\n', '\nwithdrawls:\n'),
    'withdrawls is not a policy key; did you mean withdrawals?',
  ],
  [
    'two levels down',
    (text) => text.replace('    mode: warn', '    mdoe: warn'),
    'withdrawals.allowlist.mdoe is not a policy key; did you mean mode?',
  ],
  [
    'a list item',
    (text) => text.replace('{ max: 10000, approvals: 2 }', '{ max: 10000, aprovals: 2 }'),
    'withdrawals.tiers.default[1].aprovals is not a policy key; did you mean approvals?',
  ],
];
/** A change the admins may well approve: the daily limit raised. */
const RAISED = POLICY.replace('daily_limit: { USDT: 50000 }', 'daily_limit: { USDT: 80000 }');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The app on `file`, stopped after the test. */
async function start(file: string, o: { dataDir?: string; watchPolicyFile?: boolean } = {}): Promise<TestApp> {
  const t = await startTestApp({ policyFile: file, ...o });
  cleanups.push(() => t.stop());
  return t;
}

/** What each admin (Erin, Dave) was told by DM. */
const toldAdmins = (a: TestApp) =>
  Promise.all(
    [USERS.erin, USERS.dave].map((admin) =>
      until(`${admin} is told`, () => a.fake.channel(a.fake.dmChannel(admin))[0]).then((m) => textOf(m)),
    ),
  );

describe.each(CASES)('a misspelt key at %s', (_where, misspell, line) => {
  it('the file at the first start: the start is refused, naming the key and the key meant', async () => {
    const file = join(tempDir('unknown-keys-'), 'policy.yml');
    writeFileSync(file, misspell(POLICY));
    const fake = await startFakeSlack();
    cleanups.push(() => fake.close());
    const failing = startTestApp({ policyFile: file, fake, dataDir: tempDir('unknown-keys-data-') });
    await expect(failing).rejects.toBeInstanceOf(PolicyError);
    await expect(failing).rejects.toThrow(`${file} is invalid:\n`);
    await expect(failing).rejects.toThrow(`\n  - ${line}`);
  });

  it('the file at a later start: the approved policy stays in force, whole; the admins are told', async () => {
    const dir = tempDir('unknown-keys-');
    const dataDir = tempDir('unknown-keys-data-');
    const file = join(dir, 'policy.yml');
    writeFileSync(file, POLICY);
    const first = await startTestApp({ policyFile: file, dataDir });
    const before = { policy: first.app.deps.policy.current(), hash: gov(first).inForce()!.hash };
    await first.stop();

    writeFileSync(file, misspell(POLICY));
    const a = await start(file, { dataDir });
    expect(a.app.deps.policy.current()).toEqual(before.policy);
    expect(gov(a).inForce()!.hash).toBe(before.hash);
    for (const dm of await toldAdmins(a)) expect(dm).toContain(line);
    expect(gov(a).pending()).toBeUndefined();
    expect(changeMessages(a)).toHaveLength(0);
  });

  it('a changed file picked up while running: refused, the policy in force kept whole, the admins told', async () => {
    const file = join(tempDir('unknown-keys-'), 'policy.yml');
    writeFileSync(file, POLICY);
    // The watcher, as in production: nobody asks for the file to be read.
    const a = await start(file, { watchPolicyFile: true });
    const before = { policy: a.app.deps.policy.current(), hash: gov(a).inForce()!.hash };
    writeFileSync(file, misspell(POLICY));
    for (const dm of await toldAdmins(a)) {
      expect(dm).toContain('cannot be used, so nothing changed');
      expect(dm).toContain(line);
    }
    expect(a.app.deps.policy.current()).toEqual(before.policy);
    expect(gov(a).inForce()!.hash).toBe(before.hash);
    expect(actions(a)).toContain('policy_invalid');
    expect(actions(a)).not.toContain('policy_propose');
  });

  it('a change proposed in Slack: refused before anyone is asked to approve; the change already open stays and applies', async () => {
    const file = join(tempDir('unknown-keys-'), 'policy.yml');
    writeFileSync(file, POLICY);
    const a = await start(file);
    const before = a.app.deps.policy.current();
    const open = await proposeFile(a, file, RAISED);
    const openId = gov(a).pending()!.id;

    writeFileSync(file, misspell(RAISED));
    const r = await gov(a).checkPolicyFile();
    expect(r.kind).toBe('invalid');
    expect(r.kind === 'invalid' && r.error).toContain(line);
    for (const dm of await toldAdmins(a)) expect(dm).toContain(line);
    // No second change message: no admin is asked to approve the misspelt file.
    expect(changeMessages(a)).toHaveLength(1);
    expect(actions(a).filter((x) => x === 'policy_propose')).toHaveLength(1);
    expect(gov(a).pending()?.id).toBe(openId);
    expect(a.app.deps.policy.current()).toEqual(before);

    // The change the admins were shown is still theirs to approve, and applies as shown.
    expect(await decideChange(a, USERS.erin, 'approve', open)).toContain('recorded');
    expect(await decideChange(a, USERS.dave, 'approve', open)).toContain('in force');
    expect(a.app.deps.policy.current()).toEqual({
      ...before,
      withdrawals: { ...before.withdrawals, daily_limit: { USDT: '80000' } },
    });
  });
});

describe('an approved policy kept from before unknown keys were refused', () => {
  it('a later start enforces it as it was, logs the keys it ignores, and tells the admins what to fix in the file', async () => {
    const dir = tempDir('unknown-keys-');
    const dataDir = tempDir('unknown-keys-data-');
    const file = join(dir, 'policy.yml');
    writeFileSync(file, POLICY);
    await (await startTestApp({ policyFile: file, dataDir })).stop();
    // What an older version accepted and kept: the file with a misspelt limit, meaning no limit.
    const old = POLICY.replace('daily_limit:', 'daily_limt:');
    const store = await openStore({ dir: dataDir });
    const hash = policyHash(parseApprovedPolicy(old, 'old').policy);
    await store.commit((tx) =>
      tx.put(POLICY_IN_FORCE, IN_FORCE_ID, { ...tx.get(POLICY_IN_FORCE, IN_FORCE_ID)!, text: old, hash }),
    );
    await store.close();
    writeFileSync(file, old);

    const a = await start(file, { dataDir });
    expect(a.app.deps.policy.current().withdrawals.daily_limit).toEqual({});
    expect(gov(a).inForce()!.hash).toBe(hash);
    expect(a.logs()).toContain('withdrawals.daily_limt is not a policy key; did you mean daily_limit?');
    for (const dm of await toldAdmins(a))
      expect(dm).toContain('withdrawals.daily_limt is not a policy key; did you mean daily_limit?');

    // The file fixed: proposed to the admins like any change, the limit shown as new.
    const m = await proposeFile(a, file, POLICY);
    expect(textOf(m)).toContain('daily limit USDT');
  });
});
