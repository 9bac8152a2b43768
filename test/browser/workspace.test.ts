/**
 * The local workspace in a real browser (Debian's chromium through playwright-core): the
 * whole story a person would try, clicked and typed as they would, against the app started
 * as `npm start` starts it in local mode (embedded sandbox, the workspace as Slack).
 * A screenshot of every step goes to test-artifacts/browser/; with DOCS_SCREENSHOTS=1
 * (`npm run docs:screenshots`) the tutorial's also go to docs/img/tour/, so they show the app as it is.
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
/** A 1x1 PNG, for image blocks. */
const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

let app: RunningApp;
let browser: Browser;
let page: Page;
let dataDir: string;
let step = 0;
/** Uncaught errors of the page's scripts (a module that fails to load or throws). */
const pageErrors: string[] = [];

const TOUR = join(process.cwd(), 'docs', 'img', 'tour');

async function shot(name: string): Promise<void> {
  step += 1;
  await page.screenshot({ path: join(ARTIFACTS, `${String(step).padStart(2, '0')}-${name}.png`) });
  if (process.env.DOCS_SCREENSHOTS === '1') await page.screenshot({ path: join(TOUR, `${name}.png`) });
}

const as = async (name: string) => {
  await page.locator('#people button', { hasText: name }).click();
  await expect.poll(() => page.locator('#people button[aria-current="true"]').innerText()).toContain(name);
};
const channel = async (name: string) => page.locator(`#sidebar button[data-channel="${name}"]`).click();
const command = async (text: string) => {
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
};
const pane = () => page.locator('#pane');
/** The newest message in the open pane that contains `text`. */
const msg = (text: string) => page.locator('#pane article.msg', { hasText: text }).last();

// CI installs Debian's chromium (.ci/run): there, a missing browser is a failure, not a skip.
if (process.env.CI && !existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium)`);
}

describe.skipIf(!existsSync(CHROMIUM))('the local workspace in a browser', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'treasury-browser-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    app = await startApp({
      config,
      logger: createLogger({ level: 'silent' }),
      outbox: { paceMs: 30, baseBackoffMs: 50, maxBackoffMs: 500 },
      sandbox: { webhook: { retryBaseMs: 100, confirmAfterMs: 1500 } },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    page = await context.newPage();
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

  it('shows the policy people with their roles, and the channels', async () => {
    await expect.poll(() => page.locator('#people').innerText()).toContain('Erin');
    expect(await page.locator('#people').innerText()).toMatch(/Erin\s+approvers, admins/);
    expect(await page.locator('#channels').innerText()).toMatch(/general[\s\S]*approvals[\s\S]*alerts/);
  });

  it('generates an address, and its QR code arrives in the direct messages', async () => {
    await as('Alice');
    await channel('general');
    await command(`/address ${CLIENT} USDT BSC`);
    const reply = msg('Deposit address: USDT on BSC');
    await reply.waitFor();
    expect(await reply.innerText()).toContain('Only visible to you');
    await shot('address');
    await channel('Treasury (app)');
    const qr = page.locator('#pane img.file-image').last();
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBeGreaterThan(100);
    await shot('address-qr');
  });

  it('requests a withdrawal in the modal, with a field error first', async () => {
    await channel('general');
    await command('/withdraw');
    const modal = page.locator('#modals form');
    await modal.waitFor();
    await modal.getByLabel('Amount').fill('5000');
    await modal.getByLabel('Currency').selectOption('USDT');
    await modal.getByLabel('Network').selectOption('BSC');
    await modal.getByLabel('Destination address').fill('not-an-address');
    await modal.getByLabel('Client e-mail').fill(CLIENT);
    // A note as finance staff write one: this form's screenshots are the tutorial's.
    await modal.getByLabel(/Note for the approvers/).fill('Supplier payout, invoice 1042');
    await modal.getByRole('button', { name: 'Request approval' }).click();
    const error = modal.locator('.field-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/address/i);
    // What was typed survives the re-render that shows the error.
    expect(await modal.getByLabel('Amount').inputValue()).toBe('5000');
    await shot('withdraw-field-error');
    await modal.getByLabel('Destination address').fill(LISTED);
    await modal.getByRole('button', { name: 'Request approval' }).click();
    await expect.poll(() => page.locator('#modals form').count()).toBe(0);
    await channel('approvals');
    const card = msg('5,000.00 USDT on BSC');
    await card.waitFor();
    expect(await card.innerText()).toContain('Supplier payout, invoice 1042');
    await shot('withdraw-card');
  });

  it("refuses the requester's own approval, then two approvers approve and it is sent", async () => {
    await msg('5,000.00 USDT on BSC').getByRole('button', { name: 'Approve' }).click();
    const refusal = page.locator('#pane article.msg.ephemeral').last();
    await expect.poll(() => refusal.innerText()).toMatch(/own/i);
    await shot('own-approval-refused');

    await as('Carol');
    await channel('approvals');
    await msg('5,000.00 USDT on BSC').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => msg('5,000.00 USDT on BSC').innerText()).toContain('Carol');
    await as('Dave');
    await channel('approvals');
    await msg('5,000.00 USDT on BSC').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => msg('5,000.00 USDT on BSC').innerText(), { timeout: WAIT }).toContain('Sent');
    expect(await msg('5,000.00 USDT on BSC').innerText()).toContain('(edited)');
    expect(await msg('5,000.00 USDT on BSC').getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await shot('withdraw-sent');

    await as('Alice');
    await channel('Treasury (app)');
    await expect.poll(() => pane().innerText()).toMatch(/5,000[\s\S]*sent|sent[\s\S]*5,000/i);
    await shot('requester-dm');
  });

  it('rejects another request with a reason', async () => {
    await as('Bob');
    await channel('general');
    // A probe of the escaping in the note (kept out of the tutorial's screenshots).
    await command(`/withdraw 50 USDT BSC ${LISTED} ${CLIENT} petty cash <b>bold?</b>`);
    await as('Erin');
    await channel('approvals');
    const card = msg('50.00 USDT on BSC');
    await card.waitFor();
    await card.getByRole('button', { name: 'Reject…' }).click();
    const modal = page.locator('#modals form');
    await modal.waitFor();
    await modal.locator('textarea').fill('Wrong client for this payout');
    await modal.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.locator('#modals form').count()).toBe(0);
    await expect.poll(() => msg('50.00 USDT on BSC').innerText()).toContain('Rejected');
    expect(await msg('50.00 USDT on BSC').innerText()).toContain('Wrong client for this payout');
    expect(await msg('50.00 USDT on BSC').innerText()).toContain('@Erin');
    // User text is shown as text, never as markup.
    expect(await msg('50.00 USDT on BSC').innerText()).toContain('<b>bold?</b>');
    expect(await msg('50.00 USDT on BSC').locator('b', { hasText: 'bold?' }).count()).toBe(0);
    await shot('withdraw-rejected');
  });

  it('simulates a deposit: its alert appears, then confirms', async () => {
    const form = page.locator('#deposit-form');
    await form.getByLabel('Amount').fill('123.45');
    await form.getByRole('button', { name: 'Simulate a deposit' }).click();
    await channel('alerts-deposit-usdt');
    const alert = msg('123.45');
    await alert.waitFor();
    await shot('deposit-alert');
    await expect.poll(() => alert.innerText(), { timeout: WAIT }).toMatch(/confirmed/i);
    await shot('deposit-confirmed');
  });

  it('looks transactions up with /tx and pages', async () => {
    await channel('general');
    await command('/tx currency=USDT size=5');
    const list = msg('Page 1 of');
    await list.waitFor();
    await list.getByRole('button', { name: 'Next →' }).click();
    await msg('Page 2 of').waitFor();
    // The page replaced the first one in place.
    expect(await page.locator('#pane article.msg', { hasText: 'Page 1 of' }).count()).toBe(0);
    await shot('tx-page-2');
  });

  it('exports a CSV to the direct messages', async () => {
    await command('/tx export currency=USDT');
    await channel('Treasury (app)');
    const link = page.locator('#pane .file a[download$=".csv"]').last();
    await link.waitFor();
    const download = page.waitForEvent('download');
    await link.click();
    const file = await download;
    const path = await file.path();
    const { readFileSync } = await import('node:fs');
    const csv = readFileSync(path, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/currency/i);
    expect(csv).toContain('USDT');
    await shot('tx-export');
  });

  it('opens the App Home: approvals waiting (with buttons), own requests, deposits, wallet status', async () => {
    await as('Bob');
    await command(`/withdraw 60 USDT BSC ${LISTED} ${CLIENT} office rent`);
    await as('Carol');
    await page.locator('#home-link').click();
    await expect.poll(() => pane().innerText()).toContain('Waiting for your decision');
    const home = await pane().innerText();
    expect(home).toContain('60.00 USDT');
    expect(home).toMatch(/Latest deposits/i);
    expect(home).toMatch(/Wallet service/i);
    expect(await pane().getByRole('button', { name: 'Approve' }).count()).toBeGreaterThan(0);
    await shot('app-home');
    await pane().getByRole('button', { name: 'Approve' }).first().click();
    // The Home's Approve asks to confirm, with the amount and the payee (test/browser/home-queue.test.ts).
    await page
      .getByRole('dialog', { name: 'Approve this withdrawal?' })
      .getByRole('button', { name: 'Approve' })
      .click();
    // The decision leaves the queue, and the Home says what became of it.
    await expect.poll(() => pane().innerText()).toContain('Your approval of 60.00 USDT on BSC');
    expect(await pane().innerText()).toContain('Waiting for your decision (0)');
    await as('Bob');
    await page.locator('#home-link').click();
    await expect.poll(() => pane().innerText()).toContain('Your latest requests');
    await shot('app-home-requester');
  });

  it('renders Block Kit faithfully and safely: formatting, mentions, emoji, images, confirm dialogs, stacked modals', async () => {
    // A test-only command on the running app, answered through the same Web API as every other.
    const bolt = app.slack!.app;
    let confirmed = 0;
    bolt.command('/kit', async ({ ack, command, client }) => {
      await ack();
      await client.chat.postMessage({
        channel: command.channel_id,
        text: 'kit',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: '<script>window.__xss=2</script> Kit' } },
          {
            type: 'section',
            text: {
              type: 'mrkdwn',
              text: '*bold* _it_ ~gone~ `code` <https://example.com|a link> <@U0ALICE> <#C0APPROVALS> :white_check_mark: snake_case_name &lt;img src=x onerror="window.__xss=1"&gt; <javascript:alert(1)|bad link>',
            },
            accessory: { type: 'image', image_url: PIXEL, alt_text: 'pixel accessory' },
          },
          { type: 'context', elements: [{ type: 'mrkdwn', text: 'context _note_' }] },
          { type: 'divider' },
          { type: 'image', image_url: PIXEL, alt_text: 'pixel image' },
          {
            type: 'actions',
            block_id: 'kit_actions',
            elements: [
              {
                type: 'button',
                action_id: 'kit_danger',
                text: { type: 'plain_text', text: 'Danger' },
                style: 'danger',
                confirm: {
                  title: { type: 'plain_text', text: 'Really?' },
                  text: { type: 'mrkdwn', text: 'Sure?' },
                  confirm: { type: 'plain_text', text: 'Do it' },
                  deny: { type: 'plain_text', text: 'Stop' },
                },
              },
              { type: 'button', action_id: 'kit_form', text: { type: 'plain_text', text: 'Open form' } },
            ],
          },
        ],
      });
    });
    bolt.action('kit_danger', async ({ ack }) => {
      await ack();
      confirmed += 1;
    });
    const modal = (title: string, withMore: boolean) => ({
      type: 'modal' as const,
      title: { type: 'plain_text' as const, text: title },
      close: { type: 'plain_text' as const, text: 'Back' },
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `This is *${title}*` } },
        ...(withMore
          ? [
              {
                type: 'actions',
                block_id: 'more',
                elements: [{ type: 'button', action_id: 'kit_more', text: { type: 'plain_text', text: 'More…' } }],
              },
            ]
          : []),
      ],
    });
    bolt.action('kit_form', async ({ ack, body, client }) => {
      await ack();
      await client.views.open({ trigger_id: (body as { trigger_id: string }).trigger_id, view: modal('First', true) });
    });
    bolt.action('kit_more', async ({ ack, body, client }) => {
      await ack();
      await client.views.push({
        trigger_id: (body as { trigger_id: string }).trigger_id,
        view: modal('Second', false),
      });
    });
    app.local!.setCommands(['/address', '/withdraw', '/tx', '/treasury', '/kit']);

    await as('Alice');
    await channel('general');
    await command('/kit');
    const kit = msg('Kit');
    await kit.waitFor();
    expect(await kit.locator('b', { hasText: 'bold' }).count()).toBe(1);
    expect(await kit.locator('i', { hasText: 'it' }).count()).toBeGreaterThan(0);
    expect(await kit.locator('s', { hasText: 'gone' }).count()).toBe(1);
    expect(await kit.locator('code', { hasText: 'code' }).count()).toBe(1);
    expect(await kit.locator('a[href="https://example.com/"], a[href="https://example.com"]').innerText()).toBe(
      'a link',
    );
    const text = await kit.innerText();
    expect(text).toContain('@Alice');
    expect(text).toContain('#approvals');
    expect(text).toContain('✅');
    expect(text).toContain('snake_case_name');
    expect(text).toContain('<script>window.__xss=2</script> Kit');
    expect(text).toContain('<img src=x onerror="window.__xss=1">');
    expect(await kit.locator('a', { hasText: 'bad link' }).count()).toBe(0);
    expect(await page.locator('img[src="x"], script:not([src])').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
    expect(await kit.locator('img[alt="pixel image"]').count()).toBe(1);
    expect(await kit.locator('img[alt="pixel accessory"]').count()).toBe(1);
    expect(await kit.locator('hr').count()).toBe(1);
    await shot('block-kit');

    // A confirm dialog: "Stop" sends nothing, "Do it" sends the click.
    await kit.getByRole('button', { name: 'Danger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Really?' });
    await dialog.waitFor();
    await shot('confirm-dialog');
    await dialog.getByRole('button', { name: 'Stop' }).click();
    expect(await dialog.count()).toBe(0);
    await kit.getByRole('button', { name: 'Danger' }).click();
    await page.getByRole('dialog', { name: 'Really?' }).getByRole('button', { name: 'Do it' }).click();
    await expect.poll(() => confirmed).toBe(1);

    // Stacked modals: the pushed one shows on top; closing it shows the first again.
    await kit.getByRole('button', { name: 'Open form' }).click();
    const form = page.locator('#modals form');
    await expect.poll(() => form.getAttribute('aria-label')).toBe('First');
    await form.getByRole('button', { name: 'More…' }).click();
    await expect.poll(() => form.getAttribute('aria-label')).toBe('Second');
    expect(await form.innerText()).toContain('2 stacked');
    await shot('stacked-modals');
    await form.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => form.getAttribute('aria-label')).toBe('First');
    await form.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => page.locator('#modals form').count()).toBe(0);
  });

  it("ran the whole story without an error in the page's scripts", () => {
    expect(pageErrors).toEqual([]);
  });
});
