/**
 * The App Home's queue in a real browser (Debian's chromium through playwright-core), against
 * the app started as `npm start` starts it in local mode (the example policy, the embedded
 * sandbox, the local workspace as Slack): the team's queue says what each request still needs;
 * Approve shows the card's risk flags and note and asks to confirm with amount and payee; a
 * freeze can be lifted out of the box (the example policy ships two admins).
 * Screenshots go to test-artifacts/browser/home-queue-*.png.
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
const UNLISTED = '0x4444444444444444444444444444444444444444';
const WAIT = 15_000;

let app: RunningApp;
let browser: Browser;
let page: Page;
let dataDir: string;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `home-queue-${name}.png`) });
const as = async (name: string) => {
  await page.locator('#people button', { hasText: name }).click();
  await expect.poll(() => page.locator('#people button[aria-current="true"]').innerText()).toContain(name);
};
const channel = (name: string) => page.locator(`#sidebar button[data-channel="${name}"]`).click();
const command = async (text: string) => {
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
};
const pane = () => page.locator('#pane');
const msg = (text: string) => page.locator('#pane article.msg', { hasText: text }).last();

if (process.env.CI && !existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium)`);
}

describe.skipIf(!existsSync(CHROMIUM))('the App Home queue in a browser', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'treasury-home-queue-'));
    app = await startApp({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
      logger: createLogger({ level: 'silent' }),
      outbox: { paceMs: 30, baseBackoffMs: 50, maxBackoffMs: 500 },
      sandbox: { webhook: { retryBaseMs: 100, confirmAfterMs: 1500 } },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.setDefaultTimeout(WAIT);
    await page.goto(`${app.url}/`);
    await page.locator('#live.on').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("the Home's Approve shows the card's flags and note, and asks to confirm with amount and payee", async () => {
    await as('Alice');
    await channel('general');
    await command(`/withdraw 60 USDT BSC ${UNLISTED} ${CLIENT} office rent for December`);
    await expect.poll(() => app.deps.withdrawals.list().length).toBe(1);
    const id = app.deps.withdrawals.list()[0]!.id;

    await as('Carol');
    await page.locator('#home-link').click();
    await expect.poll(() => pane().innerText()).toContain('Waiting on the team');
    const home = await pane().innerText();
    expect(home).toContain('Check before approving: not on the allowlist · never paid before');
    expect(home).toContain('Note: office rent for December');
    expect(home).toMatch(/Needs 1 more of @?Carol, @?Dave or @?Erin/);
    await shot('home');

    // Cancel sends nothing.
    await pane().getByRole('button', { name: 'Approve' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Approve this withdrawal?' });
    await dialog.waitFor();
    const said = await dialog.innerText();
    expect(said).toContain('Approve 60.00 USDT on BSC to 0x4444…4444');
    expect(said).toContain('⚠️ not on the allowlist · never paid before');
    expect(said).toContain('Note: office rent for December');
    await shot('confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(app.deps.withdrawals.get(id)!.approvals).toEqual([]);

    // Approve, confirmed: recorded, and the Home says so and drops it from the decisions.
    await pane().getByRole('button', { name: 'Approve' }).first().click();
    await page
      .getByRole('dialog', { name: 'Approve this withdrawal?' })
      .getByRole('button', { name: 'Approve' })
      .click();
    await expect.poll(() => app.deps.withdrawals.get(id)!.approvals.length).toBe(1);
    await expect.poll(() => pane().innerText()).toMatch(/Your approval (was recorded|of 60\.00 USDT)/);
    await expect.poll(() => pane().innerText()).toContain('Waiting for your decision (0)');
    await shot('approved');
    expect(pageErrors).toEqual([]);
  });

  it('a freeze can be lifted out of the box: two admins in the example policy', async () => {
    await as('Erin');
    await channel('general');
    await command('/treasury freeze drill');
    await expect.poll(() => app.deps.freeze.current()?.reason).toBe('drill');
    await command('/treasury unfreeze');
    await as('Dave');
    await channel('approvals');
    const notice = msg('Sends are frozen');
    await notice.getByRole('button', { name: 'Confirm unfreeze' }).click();
    await expect.poll(() => app.deps.freeze.current()).toBeUndefined();
    await expect.poll(() => pane().innerText()).toContain('Sends resumed');
    await shot('unfrozen');
  });
});
