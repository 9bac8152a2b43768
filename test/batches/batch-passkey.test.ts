/**
 * A batch payout above passkey_above approved with a passkey, in a real browser (Debian's chromium
 * through playwright-core) with Chromium's virtual authenticator, against the whole app with the
 * recording fake Slack, as test/browser/passkeys.test.ts does for a single withdrawal: the page
 * shows the batch (rows, total, file, its sha256), the approval counts once, and an answer signed
 * for another batch's challenge approves neither.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import type { Batch } from '../../src/batches/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until, untilAsync } from '../helpers/wait.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const HEAD = 'address,amount,currency,network,client_email,reference';
const file = (n: number, prefix: string) =>
  [HEAD, ...Array.from({ length: n }, (_, i) => `${DEST},200,USDT,BSC,${CLIENT},${prefix}-${i + 1}`)].join('\n');
// Each row (200) needs nothing; each batch's total (1,000) a passkey, in the one-approval tier.
const POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  passkey_above: { USDT: 500 }\n',
  ),
);

let t: TestApp;
let browser: Browser;
let page: Page;
let offset = 0;
const clock = () => Date.now() + offset;
const audits = (action: string, subject: string) =>
  t.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.action === action && e.subject === subject);

async function submitted(name: string, prefix: string): Promise<Batch> {
  // The clock moved a day (the passkey's waiting time): the sanctions list is read again at the new time.
  await t.app.deps.scheduler.runNow('screening.refresh');
  const out = await t.app.deps.batches!.submit({ text: file(5, prefix), fileName: name }, USERS.alice);
  if (!out.ok) throw new Error(JSON.stringify(out));
  return out.batch;
}

/** Approve on the batch's card: the private answer's "Confirm with your passkey" link. */
async function approveLink(b: Batch): Promise<string> {
  const { responseUrl } = await t.click(USERS.carol, { actionId: 'batch_approve', value: b.id });
  const [reply] = await t.replies(responseUrl, 1);
  const m = /"url":"(http:\/\/localhost:\d+\/confirm\/[A-Za-z0-9_-]{43})"/.exec(JSON.stringify(reply));
  if (!m) throw new Error(`no passkey button in ${JSON.stringify(reply)}`);
  return m[1]!;
}

/** The page's signed answer for `url`, captured before it reaches the app. */
async function captured(url: string): Promise<string> {
  const path = new URL(url).pathname;
  let body: string | undefined;
  await page.route(`**${path}`, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    body = route.request().postData() ?? '';
    return route.abort();
  });
  await page.goto(url);
  await page.locator('#go').click();
  const signed = await until('the assertion', () => body);
  await page.unroute(`**${path}`);
  return signed;
}

const post = async (url: string, body: string) => {
  const res = await fetch(url.replace('://localhost:', '://127.0.0.1:'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, reason: ((await res.json()) as { reason?: string }).reason };
};

/** A single withdrawal above passkey_above, and Carol's passkey link for it. */
async function withdrawalLink(): Promise<{ r: WithdrawalRequest; url: string }> {
  const before = new Set(t.app.deps.withdrawals.list().map((r) => r.id));
  await t.command('/withdraw', `600 USDT BSC ${DEST} ${CLIENT} invoice 9`, USERS.alice);
  const r = await until('the request', () => t.app.deps.withdrawals.list().find((x) => !before.has(x.id)));
  const { responseUrl } = await t.click(USERS.carol, { actionId: ACTIONS.approve, value: r.id });
  const [reply] = await t.replies(responseUrl, 1);
  const m = /"url":"(http:\/\/localhost:\d+\/confirm\/[A-Za-z0-9_-]{43})"/.exec(JSON.stringify(reply));
  if (!m) throw new Error(`no passkey button in ${JSON.stringify(reply)}`);
  return { r, url: m[1]! };
}

describe.skipIf(!existsSync(CHROMIUM))('a batch payout confirmed with a passkey', () => {
  beforeAll(async () => {
    t = await startTestApp({ policy: POLICY, now: clock, env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // Carol sets up a passkey from the DM's link, and its waiting time passes.
    const before = t.fake.calls('chat.postMessage').length;
    await t.command('/treasury', 'passkey', USERS.carol);
    const link = await until('the set-up link by DM', () => {
      for (const c of t.fake.calls('chat.postMessage').slice(before)) {
        const m = /<(http:\/\/localhost:\d+\/passkeys\/enrol\/[A-Za-z0-9_-]{43})\|/.exec(String(c.args.text ?? ''));
        if (m) return m[1];
      }
      return undefined;
    });
    await page.goto(link);
    await page.locator('#name').fill('Laptop');
    await page.locator('#go').click();
    await untilAsync('the passkey set up', async () =>
      (await page.locator('#status').innerText()).includes('is set up') ? true : undefined,
    );
    offset += 24 * 3_600_000 + 60_000;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the page shows the batch and its file; the passkey approves it once, and every row is sent', async () => {
    const b = await submitted('november.csv', 'A');
    expect(b.stepUpNeed).toBe('passkey');
    const url = await approveLink(b);
    await page.goto(url);
    const summary = await page.locator('#summary').innerText();
    for (const want of ['1,000.00 USDT', 'november.csv', b.sha256]) expect(summary).toContain(want);
    expect(await page.locator('main').innerText()).toContain('this batch payout');
    await page.locator('#go').click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('Your approval is recorded');
    expect(t.app.deps.batches!.get(b.id)!.approvals).toEqual([
      expect.objectContaining({ user: USERS.carol, stepUp: 'passkey' }),
    ]);
    expect(audits('passkey_confirmed', b.id)).toHaveLength(1);
    expect(audits('batch_approve', b.id)[0]?.details).toMatchObject({ stepUp: 'passkey', stepUpFor: b.sha256 });
    await until('every row sent', () => t.app.deps.batches!.get(b.id)?.state === 'done', 30_000);
    expect(t.app.sandbox!.stats.withdrawals).toBe(5);
  });

  it('an answer signed for another batch’s challenge approves neither batch', async () => {
    const one = await submitted('one.csv', 'B');
    const two = await submitted('two.csv', 'C');
    const urlOne = await approveLink(one);
    const urlTwo = await approveLink(two);
    // The page's answer for the first batch, captured before it reaches the app.
    const path = new URL(urlOne).pathname;
    let body: string | undefined;
    await page.route(`**${path}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      body = route.request().postData() ?? '';
      return route.abort();
    });
    await page.goto(urlOne);
    await page.locator('#go').click();
    const signed = await until('the assertion', () => body);
    await page.unroute(`**${path}`);
    // Sent to the second batch's confirmation instead.
    const res = await fetch(urlTwo.replace('://localhost:', '://127.0.0.1:'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: signed,
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { reason?: string }).reason).toBe('other_request');
    expect(audits('passkey_refused', two.id).at(-1)?.details).toMatchObject({ why: 'other_request' });
    for (const b of [one, two])
      expect(t.app.deps.batches!.get(b.id)).toMatchObject({ state: 'pending', approvals: [] });
  });

  it('a withdrawal’s passkey answer approves no batch, and a batch’s approves no withdrawal', async () => {
    const b = await submitted('three.csv', 'D');
    const w = await withdrawalLink();
    const forWithdrawal = await captured(w.url);
    expect(await post(await approveLink(b), forWithdrawal)).toMatchObject({ status: 403, reason: 'other_request' });
    const forBatch = await captured(await approveLink(b));
    expect(await post(w.url, forBatch)).toMatchObject({ status: 403, reason: 'other_request' });
    expect(t.app.deps.batches!.get(b.id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(t.app.deps.withdrawals.get(w.r.id)?.approvals).toEqual([]);
  });

  it('a batch gone while its answer is checked: refused as changed, never taken for a withdrawal of that id', async () => {
    const b = await submitted('four.csv', 'E');
    const url = await approveLink(b);
    // The batch is there when the challenge is bound again, then gone (the second look, at the approval).
    await page.goto(url);
    const real = t.app.deps.batches!.get.bind(t.app.deps.batches);
    let looks = 0;
    const get = vi.spyOn(t.app.deps.batches!, 'get').mockImplementation((id) => (++looks > 1 ? undefined : real(id)));
    const withdrawalApprovals = vi.spyOn(t.app.deps.withdrawals, 'approve');
    try {
      await page.locator('#go').click();
      await expect.poll(() => page.locator('#status').innerText()).not.toMatch(/^(|Waiting for your passkey…)$/);
    } finally {
      get.mockRestore();
    }
    expect(withdrawalApprovals).not.toHaveBeenCalled();
    withdrawalApprovals.mockRestore();
    expect(audits('passkey_refused', b.id).at(-1)?.details).toMatchObject({ why: 'changed' });
    expect(t.app.deps.batches!.get(b.id)).toMatchObject({ state: 'pending', approvals: [] });
  });
});
