/**
 * Passkeys in a real browser (Debian's chromium through playwright-core) with Chromium's virtual
 * authenticator (the CDP WebAuthn domain, user verification on), against the whole app in HTTP
 * mode with the recording fake Slack: enrolment from `/treasury passkey` (the DM's link), an
 * approval confirmed on the page that shows the withdrawal and counts exactly once, and each
 * refusal: a replayed assertion, one for another request, a request changed after the challenge,
 * a wrong origin (a relaying page on another port), no user verification, an expired challenge,
 * another user's credential. Each refusal says so on the page and leaves an audit entry; none
 * records an approval. Screenshots go to test-artifacts/browser/passkeys-*.png.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAttestationObject, isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { parsePolicy } from '../../src/policy/load.js';
import { secrets } from '../../src/secrets.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { WITHDRAWALS } from '../../src/withdrawals/shell.js';
import type { WithdrawalRequest } from '../../src/withdrawals/types.js';
import { clientOnRecord } from '../helpers/clients.js';
import { startTestApp, TEST_POLICY_YAML, USERS, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'browser');
const CLIENT = 'passkey@client.example';
const DEST = '0x1111111111111111111111111111111111111111';
const OTHER_DEST = '0x3333333333333333333333333333333333333333';
const WAIT = 15_000;
const POLICY = parsePolicy(
  TEST_POLICY_YAML.replace(
    '  daily_limit: { USDT: 50000 }\n',
    '  daily_limit: { USDT: 50000 }\n  passkey_above: { USDT: 500 }\n',
  ),
);

let t: TestApp;
let browser: Browser;
let offset = 0;
const clock = () => Date.now() + offset;
/** One page per person (or device), each with its own virtual authenticator (its own passkeys). */
const pages = new Map<string, { page: Page; authenticatorId: string; cdp: CDPSession }>();
const servers: Server[] = [];

if (process.env.CI && !existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium)`);
}

async function personPage(device: string): Promise<{ page: Page; authenticatorId: string; cdp: CDPSession }> {
  const had = pages.get(device);
  if (had) return had;
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(WAIT);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const got = { page, authenticatorId, cdp };
  pages.set(device, got);
  return got;
}

const audits = (action: string, subject?: string) =>
  t.app.deps.store
    .all(AUDIT_COLLECTION)
    .filter((e) => e.action === action && (subject === undefined || e.subject === subject));

/** The DM's link, for `/treasury passkey` typed by `user`. */
async function enrolLink(user: string): Promise<string> {
  const before = t.fake.calls('chat.postMessage').length;
  await t.command('/treasury', 'passkey', user);
  return until('the set-up link by DM', () => {
    for (const c of t.fake.calls('chat.postMessage').slice(before)) {
      const m = /<(http:\/\/localhost:\d+\/passkeys\/enrol\/[A-Za-z0-9_-]{43})\|/.exec(String(c.args.text ?? ''));
      if (m) return m[1];
    }
    return undefined;
  });
}

/** `device`: whose page (and virtual authenticator) it is; `user`: whose Slack account asks for the link. */
async function enrol(device: string, name: string, user = device): Promise<void> {
  const { page } = await personPage(device);
  await page.goto(await enrolLink(user));
  await page.locator('#name').fill(name);
  await page.locator('#go').click();
  await expect.poll(() => page.locator('#status').innerText()).toContain('is set up');
}

let seq = 0;
async function newRequest(amount = '2000', note = `invoice ${++seq}`): Promise<WithdrawalRequest> {
  const before = new Set(t.app.deps.withdrawals.list().map((r) => r.id));
  await t.command('/withdraw', `${amount} USDT BSC ${DEST} ${CLIENT} ${note}`, USERS.alice);
  return until('the request', () => t.app.deps.withdrawals.list().find((r) => !before.has(r.id)));
}

/** Approve on the card: the private answer's "Confirm with your passkey" button, its URL. */
async function approveLink(user: string, r: WithdrawalRequest): Promise<string> {
  const { responseUrl } = await t.click(user, { actionId: ACTIONS.approve, value: r.id });
  const [reply] = await t.replies(responseUrl, 1);
  const button = JSON.stringify(reply);
  const m = /"url":"(http:\/\/localhost:\d+\/confirm\/[A-Za-z0-9_-]{43})"/.exec(button);
  if (!m) throw new Error(`no passkey button in ${button}`);
  expect(button).toContain('Confirm with your passkey');
  return m[1]!;
}

/** Opens the confirmation page and presses the button; resolves with what the page says. */
async function confirmOn(page: Page, url: string): Promise<string> {
  await page.goto(url);
  await page.locator('#go').click();
  await expect.poll(() => page.locator('#status').innerText()).not.toMatch(/^(|Waiting for your passkey…)$/);
  return page.locator('#status').innerText();
}

/** The assertion the page posts, captured and stopped before it reaches the app. */
async function capturedAssertion(page: Page, url: string): Promise<string> {
  const path = new URL(url).pathname;
  let body: string | undefined;
  await page.route(`**${path}`, async (route) => {
    if (route.request().method() === 'POST') {
      body = route.request().postData() ?? '';
      return route.abort();
    }
    return route.continue();
  });
  await page.goto(url);
  await page.locator('#go').click();
  const got = await until('the assertion', () => body);
  await page.unroute(`**${path}`);
  return got;
}

const post = (url: string, body: string) =>
  fetch(url.replace('://localhost:', '://127.0.0.1:'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { ok: boolean; reason?: string; message: string },
  }));

const lastRefusal = (subject: string) => audits('passkey_refused', subject).at(-1)?.details.why;

describe.skipIf(!existsSync(CHROMIUM))('passkeys in a browser', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp({ policy: POLICY, now: clock, env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
    t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '100000');
    await clientOnRecord({ store: t.app.deps.store, wallet: t.app.deps.wallet }, CLIENT);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) s.close();
    await t?.stop();
  });

  it('enrolment: the DM link registers a passkey, kept in the store, audited, the admins told; the link works once', async () => {
    const link = await enrolLink(USERS.carol);
    const { page } = await personPage(USERS.carol);
    await page.goto(link);
    expect(await page.locator('h1').innerText()).toBe('Set up a passkey');
    await page.locator('#name').fill('Laptop');
    await page.locator('#go').click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('Your passkey “Laptop” is set up');
    await page.screenshot({ path: join(ARTIFACTS, 'passkeys-enrolled.png') });
    expect(t.app.deps.passkeys.enrolment.list(USERS.carol).map((c) => c.name)).toEqual(['Laptop']);
    expect(audits('passkey_enrolled', USERS.carol)).toHaveLength(1);
    await until('the admins told', () =>
      t.fake
        .calls('chat.postMessage')
        .find((c) => String(c.args.text).includes(`<@${USERS.carol}> set up a passkey (“Laptop”)`)),
    );
    // Single use: the same link again is refused, on the page and to a direct POST.
    const again = await page.goto(link);
    expect(again!.status()).toBe(410);
    expect(await page.locator('main').innerText()).toContain('already used');

    // `/treasury passkey list` shows it; a second, named passkey; Dave too.
    const { responseUrl } = await t.command('/treasury', 'passkey list', USERS.carol);
    expect(JSON.stringify(await t.replies(responseUrl, 1))).toContain('Laptop');
    await enrol(USERS.dave, 'YubiKey');
    expect(t.app.deps.passkeys.enrolment.list(USERS.dave)).toHaveLength(1);
  });

  it('refused: a passkey set up too recently (one a hijacked account just enrolled); then its waiting time passes', async () => {
    const r = await newRequest();
    // At Approve: every passkey of Carol's is in its waiting time, so no confirmation is started.
    const { responseUrl } = await t.click(USERS.carol, { actionId: ACTIONS.approve, value: r.id });
    const [reply] = await t.replies(responseUrl, 1);
    expect(String(reply!.text)).toContain('Your passkey was set up recently: it confirms approvals from');
    expect(audits('passkey_confirm_started', r.id)).toHaveLength(0);

    // A day on, Carol's first passkey can confirm; a second one enrolled now (another device) cannot yet.
    offset += 24 * 3_600_000 + 60_000;
    await enrol('carol-2', 'Phone', USERS.carol);
    const later = await newRequest();
    const url = await approveLink(USERS.carol, later);
    const { page } = await personPage('carol-2');
    // The page asked to take any key on this device: the new one answers, and the server refuses it.
    await page.route('**/options', async (route) => {
      const res = await route.fetch();
      const json = (await res.json()) as { options: { allowCredentials?: unknown[] } };
      json.options.allowCredentials = [];
      await route.fulfill({ response: res, json });
    });
    try {
      expect(await confirmOn(page, url)).toContain('set up too recently');
    } finally {
      await page.unroute('**/options');
    }
    expect(audits('passkey_refused', later.id).at(-1)!.details).toMatchObject({ why: 'too_new', passkey: 'Phone' });
    expect(t.app.deps.withdrawals.get(later.id)!.approvals).toEqual([]);
    // Removed again, so the tests below see Carol with her one passkey.
    await t.app.deps.passkeys.enrolment.remove(USERS.carol, 'Phone');
  });

  it('an approval confirmed with a passkey counts exactly once; the page shows what is approved', async () => {
    const r = await newRequest('2000');
    const url = await approveLink(USERS.carol, r);
    const { page } = await personPage(USERS.carol);
    const posted: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === new URL(url).pathname)
        posted.push(req.postData() ?? '');
    });
    await page.goto(url);
    const summary = await page.locator('#summary').innerText();
    for (const want of ['2,000.00 USDT', 'BSC', DEST, 'Exchange hot wallet', CLIENT, `invoice ${seq}`])
      expect(summary).toContain(want);
    await page.screenshot({ path: join(ARTIFACTS, 'passkeys-confirm.png') });
    await page.locator('#go').click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('Your approval is recorded');
    const approved = t.app.deps.withdrawals.get(r.id)!;
    expect(approved.approvals).toEqual([expect.objectContaining({ user: USERS.carol, stepUp: 'passkey' })]);
    expect(audits('passkey_confirmed', r.id)).toHaveLength(1);

    // The same assertion again (a replay): refused, audited, nothing more approved.
    expect(posted).toHaveLength(1);
    const replay = await post(url, posted[0]!);
    expect(replay.status).toBe(403);
    expect(replay.body.reason).toBe('replayed');
    expect(replay.body.message).toContain('already used');
    expect(lastRefusal(r.id)).toBe('replayed');
    // Reloading the page says it is spent.
    await page.goto(url);
    expect(await page.locator('main').innerText()).toContain('already used');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toHaveLength(1);
    expect(audits('approve', r.id)).toHaveLength(1);
  });

  it('refused: an assertion signed for another request', async () => {
    const one = await newRequest();
    const two = await newRequest();
    const { page } = await personPage(USERS.dave);
    const forOne = await capturedAssertion(page, await approveLink(USERS.dave, one));
    const urlTwo = await approveLink(USERS.dave, two);
    const got = await post(urlTwo, forOne);
    expect(got.status).toBe(403);
    expect(got.body.reason).toBe('other_request');
    expect(got.body.message).toContain('signed for another withdrawal');
    expect(lastRefusal(two.id)).toBe('other_request');
    expect(t.app.deps.withdrawals.get(one.id)!.approvals).toEqual([]);
    expect(t.app.deps.withdrawals.get(two.id)!.approvals).toEqual([]);
  });

  it('refused: the request changed after the challenge (destination, then amount)', async () => {
    const { page } = await personPage(USERS.dave);
    for (const change of [{ destination: OTHER_DEST }, { amount: '2500' }]) {
      const r = await newRequest();
      const url = await approveLink(USERS.dave, r);
      await page.goto(url);
      // The stored request changes after the page was opened and the challenge made.
      await t.app.deps.store.commit((tx) => tx.put(WITHDRAWALS, r.id, { ...tx.get(WITHDRAWALS, r.id)!, ...change }));
      await page.locator('#go').click();
      await expect.poll(() => page.locator('#status').innerText()).toContain('changed after this confirmation');
      expect(lastRefusal(r.id)).toBe('changed');
      expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
    }
  });

  it('refused: a wrong origin (the page relayed through another address)', async () => {
    // A relaying page: every request forwarded to the app, as a phishing proxy would.
    const app = new URL(t.app.url);
    const relay = createServer((req, res) => {
      const fwd = httpRequest(
        { host: '127.0.0.1', port: app.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(fwd);
    });
    servers.push(relay);
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayPort = (relay.address() as AddressInfo).port;
    const r = await newRequest();
    const url = new URL(await approveLink(USERS.dave, r));
    url.port = String(relayPort);
    const { page } = await personPage(USERS.dave);
    const said = await confirmOn(page, url.toString());
    expect(said).toContain('not the Treasury app’s own address');
    const refused = audits('passkey_refused', r.id).at(-1)!;
    expect(refused.details).toMatchObject({ why: 'wrong_origin', origin: `http://localhost:${relayPort}` });
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
  });

  it('refused: no user verification (the page made to ask for none; the server insists)', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.dave, r);
    const { page, authenticatorId, cdp } = await personPage(USERS.dave);
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    // A tampered page: the options it passes to the browser ask for no verification.
    await page.route('**/options', async (route) => {
      const res = await route.fetch();
      const json = (await res.json()) as { options: { userVerification: string } };
      json.options.userVerification = 'discouraged';
      await route.fulfill({ response: res, json });
    });
    try {
      expect(await confirmOn(page, url)).toContain('did not verify it was you');
    } finally {
      await page.unroute('**/options');
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    }
    expect(lastRefusal(r.id)).toBe('no_user_verification');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
  });

  it('refused: an expired challenge (answered after its 5 minutes)', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.dave, r);
    const { page } = await personPage(USERS.dave);
    // The answer is held until the challenge's 5 minutes are over.
    await page.route(`**${new URL(url).pathname}`, async (route) => {
      if (route.request().method() === 'POST') offset += 5 * 60_000 + 1_000;
      await route.continue();
    });
    try {
      expect(await confirmOn(page, url)).toContain('expired');
    } finally {
      await page.unroute(`**${new URL(url).pathname}`);
    }
    expect(lastRefusal(r.id)).toBe('expired');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
    // The page opened late says so too.
    await page.goto(url);
    expect(await page.locator('main').innerText()).toMatch(/already used|expired/);
  });

  it('refused: a credential of another user', async () => {
    // Carol's confirmation, answered with Dave's passkey (his authenticator, the page told to take any).
    const r = await newRequest();
    const url = await approveLink(USERS.carol, r);
    const { page } = await personPage(USERS.dave);
    await page.route('**/options', async (route) => {
      const res = await route.fetch();
      const json = (await res.json()) as { options: { allowCredentials?: unknown[] } };
      json.options.allowCredentials = [];
      await route.fulfill({ response: res, json });
    });
    try {
      expect(await confirmOn(page, url)).toContain('belongs to someone else');
    } finally {
      await page.unroute('**/options');
    }
    const refused = audits('passkey_refused', r.id).at(-1)!;
    expect(refused.details).toMatchObject({ why: 'other_user', credentialOf: USERS.dave });
    expect(refused.actor).toBe(USERS.carol);
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
  });

  it('refused: a copied key (its signature counter went backwards), after one good confirmation', async () => {
    const first = await newRequest();
    const { page, authenticatorId, cdp } = await personPage(USERS.dave);
    expect(await confirmOn(page, await approveLink(USERS.dave, first))).toContain('Your approval is recorded');
    const stored = t.app.deps.passkeys.enrolment.list(USERS.dave)[0]!;
    expect(stored.counter).toBeGreaterThan(0);
    // The key copied, with its counter as it was before: a clone in another authenticator.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const clone = await personPage('dave-clone');
    await clone.cdp.send('WebAuthn.addCredential', {
      authenticatorId: clone.authenticatorId,
      credential: { ...credentials[0]!, signCount: 0 },
    });
    const second = await newRequest();
    expect(await confirmOn(clone.page, await approveLink(USERS.dave, second))).toContain('counter went backwards');
    expect(lastRefusal(second.id)).toBe('counter');
    expect(t.app.deps.withdrawals.get(second.id)!.approvals).toEqual([]);
  });

  it('someone with no passkey is told how to set one up; a removed passkey no longer confirms', async () => {
    const r = await newRequest();
    const { responseUrl } = await t.click(USERS.erin, { actionId: ACTIONS.approve, value: r.id });
    const [reply] = await t.replies(responseUrl, 1);
    expect(String(reply!.text)).toContain('/treasury passkey');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);

    const { responseUrl: removed } = await t.command('/treasury', 'passkey remove laptop', USERS.carol);
    expect(JSON.stringify(await t.replies(removed, 1))).toContain('is removed');
    expect(audits('passkey_removed', USERS.carol).at(-1)!.details).toEqual({ name: 'Laptop' });
    // Told as an enrolment is: the admins in the alerts channel, and Carol by DM (it may not be her typing).
    await until('the admins told of the removal', () =>
      t.fake
        .calls('chat.postMessage')
        .find((c) => String(c.args.text).includes(`<@${USERS.carol}> removed their passkey (“Laptop”)`)),
    );
    await until('Carol told by DM', () =>
      t.fake
        .calls('chat.postMessage')
        .find((c) =>
          String(c.args.text).includes('Your passkey (“Laptop”) for approving large withdrawals was removed'),
        ),
    );
    expect(t.app.deps.passkeys.enrolment.list(USERS.carol)).toEqual([]);
    const { responseUrl: again } = await t.click(USERS.carol, { actionId: ACTIONS.approve, value: r.id });
    expect(String((await t.replies(again, 1))[0]!.text)).toContain('/treasury passkey');
  });

  it("an admin revokes someone's passkeys (never their own): they are told by DM, audited, and they no longer confirm", async () => {
    const { responseUrl: notAdmin } = await t.command('/treasury', `passkey revoke <@${USERS.carol}>`, USERS.dave);
    expect(JSON.stringify(await t.replies(notAdmin, 1))).toContain('Sorry, you are not allowed to');
    expect(audits('passkey_revoked')).toHaveLength(0);
    const { responseUrl: own } = await t.command('/treasury', `passkey revoke <@${USERS.erin}>`, USERS.erin);
    expect(JSON.stringify(await t.replies(own, 1))).toContain('cannot revoke your own passkeys');
    expect(audits('passkey_revoked')).toHaveLength(0);

    expect(t.app.deps.passkeys.enrolment.list(USERS.dave).length).toBeGreaterThan(0);
    const { responseUrl } = await t.command('/treasury', `passkey revoke <@${USERS.dave}>`, USERS.erin);
    expect(JSON.stringify(await t.replies(responseUrl, 1))).toContain(`of <@${USERS.dave}> revoked`);
    expect(t.app.deps.passkeys.enrolment.list(USERS.dave)).toEqual([]);
    expect(audits('passkey_revoked', USERS.dave).at(-1)!.actor).toBe(USERS.erin);
    await until('the DM to Dave', () =>
      t.fake.calls('chat.postMessage').find((c) => String(c.args.text).includes('revoked your passkeys')),
    );
    const r = await newRequest();
    const { responseUrl: approve } = await t.click(USERS.dave, { actionId: ACTIONS.approve, value: r.id });
    expect(String((await t.replies(approve, 1))[0]!.text)).toContain('/treasury passkey');
  });

  it('what the page shows is text, never markup; bad bodies are refused and change nothing', async () => {
    await enrol('erin', 'Erin key', USERS.erin);
    offset += 24 * 3_600_000 + 60_000;
    const note = '<img src=x onerror="window.pwned=1"> & <b>bold</b>';
    const r = await newRequest('2000', note);
    const url = await approveLink(USERS.erin, r);
    const { page } = await personPage('erin');
    await page.goto(url);
    expect(await page.locator('#summary').innerText()).toContain(note);
    expect(await page.locator('#summary img, #summary b').count()).toBe(0);
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    const csp = (await page.request.get(url.replace('://localhost:', '://127.0.0.1:'))).headers()[
      'content-security-policy'
    ];
    expect(csp).toContain("script-src 'self'");

    const direct = url.replace('://localhost:', '://127.0.0.1:');
    const asText = await fetch(direct, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(asText.status).toBe(415);
    const junk = await fetch(direct, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"response":',
    });
    expect(junk.status).toBe(400);
    const huge = await fetch(direct, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'x'.repeat(100_000) }),
    });
    expect(huge.status).toBe(413);
    const shape = await post(
      url,
      JSON.stringify({ response: { id: 'a', rawId: 'a', type: 'public-key', response: {} } }),
    );
    expect(shape.status).toBe(400);
    // None of them spent the confirmation: the real answer still counts.
    await page.locator('#go').click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('Your approval is recorded');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([
      expect.objectContaining({ user: USERS.erin, stepUp: 'passkey' }),
    ]);
  });

  it('enrolment through a relaying page is refused; an expired link is refused', async () => {
    const app = new URL(t.app.url);
    const relay = createServer((req, res) => {
      const fwd = httpRequest(
        { host: '127.0.0.1', port: app.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(fwd);
    });
    servers.push(relay);
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const link = new URL(await enrolLink(USERS.dave));
    link.port = String((relay.address() as AddressInfo).port);
    const { page } = await personPage('dave-relayed');
    await page.goto(link.toString());
    await page.locator('#go').click();
    await expect.poll(() => page.locator('#status').innerText()).toContain('could not be registered');
    expect(t.app.deps.passkeys.enrolment.list(USERS.dave)).toEqual([]);
    expect(audits('passkey_enrol_refused', USERS.dave)).toHaveLength(1);

    const late = await enrolLink(USERS.dave);
    offset += 15 * 60_000 + 1_000;
    const res = await page.goto(late);
    expect(res!.status()).toBe(410);
    expect(await page.locator('main').innerText()).toContain('expired');
  });

  it('the same answer sent twice at once (two tabs): it counts once, the other is refused as used', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.erin, r);
    const body = await capturedAssertion((await personPage('erin')).page, url);
    const both = await Promise.all([post(url, body), post(url, body)]);
    expect(both.map((b) => b.status).sort()).toEqual([200, 403]);
    expect(both.find((b) => b.status === 403)!.body.reason).toBe('replayed');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([expect.objectContaining({ user: USERS.erin })]);
    expect(audits('passkey_confirmed', r.id)).toHaveLength(1);
  });

  it('a crash before the approval is durable leaves no confirmation either: the challenge is spent with the approval', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.erin, r);
    const body = await capturedAssertion((await personPage('erin')).page, url);
    const store = t.app.deps.store;
    const commit = store.commit.bind(store);
    // The process "dies" in the commit that would record Erin's approval: nothing of that commit is kept.
    store.commit = ((fn: (tx: Parameters<Parameters<typeof commit>[0]>[0]) => unknown) =>
      commit((tx) => {
        const out = fn(tx);
        if (tx.get(WITHDRAWALS, r.id)?.approvals.length) throw new Error('crashed before the approval was durable');
        return out;
      })) as typeof store.commit;
    try {
      await fetch(url.replace('://localhost:', '://127.0.0.1:'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).catch(() => undefined);
    } finally {
      store.commit = commit;
    }
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
    expect(audits('passkey_confirmed', r.id)).toHaveLength(0);
    // After the "restart", the same answer still counts, once.
    const again = await post(url, body);
    expect(again.status).toBe(200);
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([expect.objectContaining({ user: USERS.erin })]);
    expect(audits('passkey_confirmed', r.id)).toHaveLength(1);
  });

  it("a registration that claims another person's credential id is refused, audited, and leaves their key as it was", async () => {
    const victim = t.app.deps.passkeys.enrolment.list(USERS.erin)[0]!;
    const enrolledBefore = audits('passkey_enrolled', USERS.dave).length;
    const link = await enrolLink(USERS.dave);
    const { page } = await personPage('dave-forger');
    const path = new URL(link).pathname;
    let captured: string | undefined;
    await page.route(`**${path}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      captured = route.request().postData() ?? '';
      return route.abort();
    });
    await page.goto(link);
    await page.locator('#name').fill('Forged');
    await page.locator('#go').click();
    const body = JSON.parse(await until('the registration', () => captured)) as {
      response: { id: string; rawId: string; response: Record<string, unknown> };
    };
    // Attestation `none` signs nothing: the credential id inside authData is swapped for Erin's.
    const att = decodeAttestationObject(
      isoBase64URL.toBuffer(String(body.response.response.attestationObject)),
    ) as unknown as Map<string, Uint8Array>;
    const auth = att.get('authData')!;
    const oldLen = (auth[53]! << 8) | auth[54]!;
    const id = isoBase64URL.toBuffer(victim.id);
    att.set(
      'authData',
      Uint8Array.from([...auth.slice(0, 53), id.length >> 8, id.length & 0xff, ...id, ...auth.slice(55 + oldLen)]),
    );
    body.response.response = {
      clientDataJSON: body.response.response.clientDataJSON,
      attestationObject: isoBase64URL.fromBuffer(
        isoCBOR.encode(att as unknown as Parameters<typeof isoCBOR.encode>[0]),
      ),
    };
    body.response.id = victim.id;
    body.response.rawId = victim.id;
    const res = await post(link, JSON.stringify(body));
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('already registered');
    expect(t.app.deps.passkeys.enrolment.list(USERS.erin)[0]).toEqual(victim);
    expect(t.app.deps.passkeys.enrolment.list(USERS.dave)).toEqual([]);
    expect(audits('passkey_enrol_refused', USERS.dave).at(-1)!.details).toEqual({ why: 'credential_taken' });
    expect(audits('passkey_enrolled', USERS.dave)).toHaveLength(enrolledBefore);
  });

  it('posts to links that do not exist (random tokens) are refused and write nothing: no audit entry, no record', async () => {
    const base = t.app.url.replace('://localhost:', '://127.0.0.1:').replace(/\/+$/, '');
    // The passkey records and the audit log (the outbox may still be sending earlier tests' messages).
    const passkeyCounts = () =>
      Object.entries(t.app.deps.store.counts()).filter(([k]) => k.startsWith('passkey_') || k === AUDIT_COLLECTION);
    const before = passkeyCounts();
    expect(before.length).toBeGreaterThan(3);
    const shaped = JSON.stringify({
      response: {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA', attestationObject: 'AAAA' },
      },
      name: 'Mine',
    });
    for (let i = 0; i < 20; i++) {
      const tok = randomBytes(32).toString('base64url');
      for (const path of [
        `/confirm/${tok}`,
        `/confirm/${tok}/options`,
        `/passkeys/enrol/${tok}`,
        `/passkeys/enrol/${tok}/options`,
      ]) {
        const res = await post(`${base}${path}`, shaped);
        expect([404, 410], path).toContain(res.status);
        expect(res.body.ok).toBe(false);
        expect(res.body.message).toMatch(/link/i);
      }
    }
    expect(passkeyCounts()).toEqual(before);
  });

  it('a policy change while the confirmation page is open is refused: the challenge is recomputed with the new version', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.erin, r);
    const body = await capturedAssertion((await personPage('erin')).page, url);
    // A change applied while the page was open (any field: the version is the policy's hash).
    const source = t.app.deps.policy as { current: () => typeof POLICY };
    const before = source.current;
    const was = before();
    const changed = {
      ...was,
      withdrawals: { ...was.withdrawals, passkey_cooloff: was.withdrawals.passkey_cooloff + 1 },
    };
    source.current = () => changed;
    try {
      const res = await post(url, body);
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe('changed');
    } finally {
      source.current = before;
    }
    expect(lastRefusal(r.id)).toBe('changed');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
  });

  it('a key removed while its confirmation page is open cannot confirm', async () => {
    const r = await newRequest();
    const url = await approveLink(USERS.erin, r);
    // Signed on the open page while the key was still kept, posted after its removal.
    const body = await capturedAssertion((await personPage('erin')).page, url);
    const { responseUrl } = await t.command('/treasury', 'passkey remove erin key', USERS.erin);
    expect(JSON.stringify(await t.replies(responseUrl, 1))).toContain('is removed');
    const res = await post(url, body);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('unknown_credential');
    expect(lastRefusal(r.id)).toBe('unknown_credential');
    expect(t.app.deps.withdrawals.get(r.id)!.approvals).toEqual([]);
    expect(audits('passkey_confirmed', r.id)).toHaveLength(0);
  });

  it('no token or secret in the logs; link tokens are not kept in the process-wide secrets registry', async () => {
    const link = await enrolLink(USERS.carol);
    // Masked by shape in the logger (log.ts): the registry does not grow with every link made.
    expect(secrets.scrub(link)).toBe(link);
    const logs = t.logs();
    expect(logs).not.toMatch(/\/passkeys\/enrol\/[A-Za-z0-9_-]{43}/);
    expect(logs).not.toMatch(/\/confirm\/[A-Za-z0-9_-]{43}/);
  });
});
