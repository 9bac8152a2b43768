/**
 * The local workspace's passkey tour (docs/guides/passkeys.md, "In the local workspace"), as
 * `npm start` runs it (the example policy asks for a passkey above $50,000): Carol types
 * `/treasury passkey`, follows the link in her DMs, which opens in a new tab of the same browser
 * at http://localhost:<port>, and sets up a passkey; a day on, Alice requests 60,000 USDT, and
 * Carol's Approve answers privately with "Confirm with your passkey", whose tab shows the
 * withdrawal and records her approval. Chromium's virtual authenticator stands in for the
 * browser's passkey manager: each new tab gets one holding the passkeys made so far.
 * Screenshots go to test-artifacts/browser/passkeys-workspace-*.png.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'browser');
const CLIENT = 'ada.okafor@acme-payments.test';
const LISTED = '0x1111111111111111111111111111111111111111';
const WAIT = 15_000;

let app: RunningApp;
let browser: Browser;
let page: Page;
let dataDir: string;
/** The passkey is set up a day and an hour in the past (its waiting time), then the clock is now again. */
let offset = -25 * 3_600_000;
/** The passkeys made so far (CDP's credential records), copied into each new tab's authenticator. */
const made: Array<{
  credentialId: string;
  isResidentCredential: boolean;
  privateKey: string;
  signCount: number;
  rpId?: string;
  userHandle?: string;
}> = [];

const as = async (name: string) => {
  await page.locator('#people button', { hasText: name }).click();
  await expect.poll(() => page.locator('#people button[aria-current="true"]').innerText()).toContain(name);
};
const channel = async (name: string) => page.locator(`#sidebar button[data-channel="${name}"]`).click();
const command = async (text: string) => {
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
};

/** A tab the workspace opened: an authenticator that holds the passkeys made so far. */
async function withAuthenticator(tab: Page): Promise<{ save(): Promise<void> }> {
  const cdp = await tab.context().newCDPSession(tab);
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
  for (const credential of made) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  return {
    async save() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      made.splice(0, made.length, ...credentials);
    },
  };
}

/** Clicks `what` in the workspace and returns the tab it opens. */
async function opened(what: () => Promise<void>): Promise<Page> {
  const [tab] = await Promise.all([page.context().waitForEvent('page'), what()]);
  tab.setDefaultTimeout(WAIT);
  await tab.waitForLoadState('domcontentloaded');
  return tab;
}

describe.skipIf(!existsSync(CHROMIUM))('passkeys in the local workspace', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'treasury-passkeys-ws-'));
    app = await startApp({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
      logger: createLogger({ level: 'silent' }),
      outbox: { paceMs: 30, baseBackoffMs: 50, maxBackoffMs: 500 },
      now: () => Date.now() + offset,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(WAIT);
    await page.goto(`${app.url}/`);
    await page.locator('#live.on').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('Carol sets up a passkey from her DM link, then confirms an approval of 60,000 USDT with it', async () => {
    await as('Carol');
    await channel('general');
    await command('/treasury passkey');
    await page.locator('#pane article.msg', { hasText: 'is in your direct messages' }).last().waitFor();
    await channel('Treasury (app)');
    const link = page.locator('#pane a', { hasText: 'set up a passkey' }).last();
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(/^http:\/\/localhost:\d+\/passkeys\/enrol\/[A-Za-z0-9_-]{43}$/);
    const enrolTab = await opened(() => link.click());
    const enrolAuth = await withAuthenticator(enrolTab);
    await enrolTab.locator('#name').fill('Workspace laptop');
    await enrolTab.locator('#go').click();
    await expect.poll(() => enrolTab.locator('#status').innerText()).toContain('is set up');
    await enrolAuth.save();
    await enrolTab.screenshot({ path: join(ARTIFACTS, 'passkeys-workspace-enrolled.png') });
    await enrolTab.close();

    // A day on (the passkey's waiting time), Alice requests more than the example policy's $50,000.
    offset = 0;
    // The price job would read prices again within its minute: read them now, at the new time.
    await app.deps.prices.refresh();
    await as('Alice');
    await channel('general');
    await command(`/withdraw 60000 USDT BSC ${LISTED} ${CLIENT} quarterly settlement`);
    await expect
      .poll(async () => (app.deps.withdrawals.list().length ? 'requested' : await page.locator('#pane').innerText()))
      .toBe('requested');
    const r = app.deps.withdrawals.list()[0]!;

    await as('Carol');
    await channel('approvals');
    await page
      .locator('#pane article.msg', { hasText: '60,000.00 USDT' })
      .last()
      .getByRole('button', { name: 'Approve' })
      .click();
    const confirm = page.locator('#pane article.msg', { hasText: 'needs your passkey' }).last();
    await confirm.waitFor();
    const confirmTab = await opened(() => confirm.getByRole('button', { name: 'Confirm with your passkey' }).click());
    await withAuthenticator(confirmTab);
    expect(confirmTab.url()).toMatch(/^http:\/\/localhost:\d+\/confirm\/[A-Za-z0-9_-]{43}$/);
    const summary = await confirmTab.locator('#summary').innerText();
    for (const want of ['60,000.00 USDT', LISTED, 'Exchange hot wallet', CLIENT, 'quarterly settlement'])
      expect(summary).toContain(want);
    await confirmTab.screenshot({ path: join(ARTIFACTS, 'passkeys-workspace-confirm.png') });
    await confirmTab.locator('#go').click();
    await expect.poll(() => confirmTab.locator('#status').innerText()).toContain('Your approval is recorded');
    const approvals = app.deps.withdrawals.get(r.id)!.approvals;
    expect(approvals).toHaveLength(1);
    expect(approvals[0]!.stepUp).toBe('passkey');
    await confirmTab.screenshot({ path: join(ARTIFACTS, 'passkeys-workspace-approved.png') });
  });
});
