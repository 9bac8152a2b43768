/**
 * The local page renders Slack's mrkdwn and emoji short codes as Slack does, in a real browser
 * (Debian's chromium through playwright-core) against the app started as `npm start` starts it
 * in local mode. The reader is in Berlin, so dates show in their zone, not the server's.
 * Screenshots go to test-artifacts/browser/.
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
const WAIT = 15_000;
// 2026-11-23 14:05:09 UTC: 15:05 in Berlin.
const AT = Date.UTC(2026, 10, 23, 14, 5, 9) / 1000;

let app: RunningApp;
let browser: Browser;
let page: Page;
let dataDir: string;
const pageErrors: string[] = [];
/** What the test-only /say command posts next (the app's own Web API client sends it). */
let next: { text: string; blocks?: unknown[] } = { text: '' };

const as = async (name: string) => {
  await page.locator('#people button', { hasText: name }).click();
  await expect.poll(() => page.locator('#people button[aria-current="true"]').innerText()).toContain(name);
};
const channel = async (name: string) => page.locator(`#sidebar button[data-channel="${name}"]`).click();
const command = async (text: string) => {
  await page.locator('#command').fill(text);
  await page.locator('#command').press('Enter');
};
const msg = (text: string) => page.locator('#pane article.msg', { hasText: text }).last();
/** Posts `text` (or blocks) as the app, and waits for it on the page. */
async function say(text: string, marker: string, blocks?: unknown[]) {
  next = { text, blocks };
  await command('/say');
  const m = msg(marker);
  await m.waitFor();
  return m;
}

if (process.env.CI && !existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium)`);
}

describe.skipIf(!existsSync(CHROMIUM))('the local page renders mrkdwn and emoji as Slack does', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'treasury-rendering-'));
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
    });
    const bolt = app.slack!.app;
    bolt.command('/say', async ({ ack, command: c, client }) => {
      await ack();
      await client.chat.postMessage({ channel: c.channel_id, text: next.text, blocks: next.blocks as never });
    });
    app.local!.setCommands(['/address', '/withdraw', '/tx', '/treasury', '/say']);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.setDefaultTimeout(WAIT);
    await page.goto(`${app.url}/`);
    await page.locator('#live.on').waitFor();
    await page.locator('#people button', { hasText: 'Alice' }).click();
    await page.locator('#people button[aria-current="true"]', { hasText: 'Alice' }).waitFor();
    await channel('general');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the emoji table made from emoji-datasource: short names, aliases, skin tones', async () => {
    const res = await fetch(`${app.url}/local/emoji.json`);
    expect(res.status).toBe(200);
    const t = (await res.json()) as { names: Record<string, string>; skinTones: string[] };
    expect(t.names.octagonal_sign).toBe('1F6D1');
    expect(t.names.thumbsup).toBe(t.names['+1']);
    expect(t.skinTones).toContain('+1');
  });

  it("shows the app's own short codes as emoji: a freeze answer and the Home's banner", async () => {
    await as('Erin');
    await channel('general');
    await command('/treasury freeze rendering check');
    const answer = msg('Sends are frozen');
    await answer.waitFor();
    const text = await answer.innerText();
    expect(text).toContain('🛑 Sends are frozen');
    expect(text).not.toContain(':octagonal_sign:');
    // The channel mention reads as the channel's name.
    expect(text).toMatch(/The notice is in #approvals/);
    await page.locator('#home-link').click();
    await expect.poll(() => page.locator('#pane').innerText()).toContain('🛑 Frozen by @Erin');
    await page.screenshot({ path: join(ARTIFACTS, 'rendering-frozen-home.png') });
    await as('Alice');
    await channel('general');
  });

  it('formats bold, italics, strike, code, links, mentions and escapes inline', async () => {
    const m = await say(
      'Inline: *bold* _italics_ ~strike~ `code :x: *raw*` snake_case_name <https://example.com/a?b=1&amp;c=2|the *docs*> ' +
        '<@U0CAROL> <#C0APPROVALS> <!here> :+1::skin-tone-3: :thumbsup: :not_a_real_code: ' +
        '&lt;img src=x onerror="window.__xss=1"&gt; &amp;amp; <javascript:alert(1)|bad link>',
      'Inline:',
    );
    expect(await m.locator('b', { hasText: /^bold$/ }).count()).toBe(1);
    expect(await m.locator('i', { hasText: /^italics$/ }).count()).toBe(1);
    expect(await m.locator('s', { hasText: /^strike$/ }).count()).toBe(1);
    // Code is verbatim: no emoji, no formatting inside.
    expect(await m.locator('code').innerText()).toBe('code :x: *raw*');
    const link = m.locator('a[href="https://example.com/a?b=1&c=2"]');
    expect(await link.innerText()).toBe('the docs');
    expect(await link.locator('b', { hasText: 'docs' }).count()).toBe(1);
    expect(await link.getAttribute('rel')).toContain('noopener');
    const text = await m.innerText();
    expect(text).toContain('snake_case_name');
    expect(text).toContain('@Carol');
    expect(text).toContain('#approvals');
    expect(text).toContain('@here');
    expect(text).toContain('👍\u{1F3FC} 👍 :not_a_real_code:');
    expect(text).toContain('<img src=x onerror="window.__xss=1"> &amp;');
    expect(await m.locator('img').count()).toBe(0);
    expect(await m.locator('a', { hasText: 'bad link' }).count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
    expect(await m.locator('.emoji[title=":thumbsup:"]').count()).toBe(1);
  });

  it('lays out quotes, bulleted lists and preformatted text as blocks', async () => {
    const m = await say(
      'Blocks:\n&gt; a quoted *line*\n&gt; and another\n• first item :white_check_mark:\n- second item\n```\nraw *not bold*\n  kept  spacing\n```\nafter',
      'Blocks:',
    );
    const quote = m.locator('blockquote');
    expect(await quote.count()).toBe(1);
    expect(await quote.innerText()).toBe('a quoted line\nand another');
    expect(await quote.locator('b', { hasText: 'line' }).count()).toBe(1);
    const items = m.locator('ul.mrkdwn-list > li');
    expect(await items.allInnerTexts()).toEqual(['first item ✅', 'second item']);
    const pre = m.locator('pre');
    expect(await pre.innerText()).toBe('raw *not bold*\n  kept  spacing');
    expect(await pre.locator('b').count()).toBe(0);
    expect(await m.innerText()).toMatch(/after$/);
    await m.screenshot({ path: join(ARTIFACTS, 'rendering-blocks.png') });
  });

  it("shows dates in the reader's own zone with Slack's tokens, and the fallback when it cannot", async () => {
    const m = await say(
      `Dates: <!date^${AT}^{date_short} {time}|2026-11-23 14:05 UTC> · <!date^${AT}^{date_long}|fallback one> · ` +
        `<!date^${AT}^{date_num}^https://example.com/d|fallback two> · <!date^soon^{date}|2026-11-23 14:05 UTC>`,
      'Dates:',
    );
    const times = await m.locator('time').allInnerTexts();
    expect(times).toEqual(['Nov 23, 2026 15:05', 'Monday, November 23rd, 2026', '2026-11-23', '2026-11-23 14:05 UTC']);
    expect(await m.locator('a[href="https://example.com/d"] time').innerText()).toBe('2026-11-23');
  });

  it('renders mrkdwn inside Block Kit too (sections, fields, context) and emoji in plain text', async () => {
    const m = await say('blocks fallback', 'Kit header', [
      { type: 'header', text: { type: 'plain_text', text: ':bank: Kit header', emoji: true } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*Status* ~old~\n> quoted in a section' },
        fields: [{ type: 'mrkdwn', text: '_Field_ :warning:' }],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Updated <!date^${AT}^{time}|14:05 UTC>` }] },
    ]);
    expect(await m.locator('.block.header').innerText()).toBe('🏦 Kit header');
    expect(await m.locator('b', { hasText: 'Status' }).count()).toBe(1);
    expect(await m.locator('s', { hasText: 'old' }).count()).toBe(1);
    expect(await m.locator('blockquote').innerText()).toBe('quoted in a section');
    expect(await m.locator('i', { hasText: 'Field' }).count()).toBe(1);
    expect(await m.innerText()).toContain('Field ⚠️');
    expect(await m.innerText()).toContain('Updated 15:05');
    expect(pageErrors).toEqual([]);
  });
});
