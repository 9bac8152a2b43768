/**
 * Issue 40's words, as finance staff read them: a spaced amount is named as such, a tier is its
 * range and its approvals ("above $50,000.00: 3 approvals"), a schedule is words ("every 30
 * seconds"), and the digest's chart is described as what is sent (to the asker's DM, over the
 * chart's own span). Pure cores first, then through the app with signed requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spacedAmount } from '../../commands/withdraw/parse.js';
import { TREASURY_VERBS } from '../../commands/table.js';
import { formatPrice } from '../../src/format/fiat.js';
import { tierWords } from '../../src/format/tier.js';
import { parsePolicy } from '../../src/policy/load.js';
import { scheduleWords } from '../../src/schedule/words.js';
import { tierFor } from '../../src/withdrawals/value-rules.js';
import { setPrices } from '../helpers/price-control.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until, untilAsync } from '../helpers/wait.js';

const ALLOWLISTED = '0x1111111111111111111111111111111111111111';
const CLIENT = 'ada@example.com';

describe('the words, pure', () => {
  it('an amount written with spaces is recognised; a plain or decimal amount is not', () => {
    expect(spacedAmount('1 000 USDT BSC 0xabc a@b.c')).toEqual({ typed: '1 000', joined: '1000' });
    expect(spacedAmount('12 500 000.50 USDT')).toEqual({ typed: '12 500 000.50', joined: '12500000.50' });
    expect(spacedAmount('1000 USDT BSC')).toBeUndefined();
    expect(spacedAmount('250.50 USDT BSC')).toBeUndefined();
    // A three-letter currency after a small amount is no group of digits.
    expect(spacedAmount('5 ETH ETH 0xabc')).toBeUndefined();
  });

  it('a tier is its range and its approvals: up to, above, in USD for value tiers and in the currency otherwise', () => {
    const value = parsePolicy(
      TEST_POLICY_YAML.replace(
        / {2}tiers:\n {4}default:\n( {6}- .*\n){3}/,
        '  tiers:\n    value:\n      - { max: 1000, approvals: 1 }\n      - { max: 50000, approvals: 2 }\n      - { approvals: 3 }\n',
      ),
    );
    const known = (usd: string) => ({
      kind: 'known' as const,
      usd,
      price: '1',
      at: '2026-11-28T00:00:00Z',
      source: 't',
    });
    expect(tierWords(tierFor(value, 'USDT', '60000', known('60000'))!, 'USDT')).toBe('above $50,000.00: 3 approvals');
    expect(tierWords(tierFor(value, 'USDT', '900', known('900'))!, 'USDT')).toBe('up to $1,000.00: 1 approval');
    const native = parsePolicy(TEST_POLICY_YAML);
    expect(tierWords(tierFor(native, 'USDT', '20000', undefined)!, 'USDT')).toBe('above 10,000.00 USDT: 3 approvals');
    expect(tierWords(tierFor(native, 'USDT', '5000', undefined)!, 'USDT')).toBe('up to 10,000.00 USDT: 2 approvals');
    // A request stored before `above` was kept: no "above every limit".
    expect(tierWords({ index: 2, max: null, approvals: 3 }, 'USDT')).toBe('the top tier: 3 approvals');
    expect(tierWords({ index: 0, max: null, approvals: 1 }, 'USDT')).toBe('any amount: 1 approval');
  });

  it('a schedule in words; the zone only where the words name a time', () => {
    expect(scheduleWords('*/30 * * * * *', 'UTC')).toBe('every 30 seconds');
    expect(scheduleWords('*/5 * * * *', 'UTC')).toBe('every 5 minutes');
    expect(scheduleWords('0 8 * * *', 'Europe/Berlin')).toBe('at 08:00 (Europe/Berlin)');
    expect(scheduleWords('0 9 1 * *', 'UTC')).toBe('at 09:00, on day 1 of the month (UTC)');
  });

  it('/treasury help says where the digest chart goes, and over which days', () => {
    const digest = TREASURY_VERBS.digest.summary;
    expect(digest).not.toContain('posted in the channel');
    expect(digest).toContain('comes to you in a direct message');
  });
});

describe('the words, through the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });
  /** The first file uploaded that was not there before. */
  const newFile = async (before: Set<string>) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const f = t.fake.files().find((x) => !before.has(x.id));
      if (f || Date.now() > deadline) return f!;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('/withdraw 1 000 USDT … answers "Write the amount without spaces", and requests nothing', async () => {
    const { responseUrl } = await t.command(
      '/withdraw',
      '1 000 USDT BSC 0x1111111111111111111111111111111111111111 ada@example.com rent',
      USERS.alice,
    );
    const [reply] = await t.replies(responseUrl);
    const text = visibleText(reply!);
    expect(text).toContain('Write the amount without spaces: `1000`, not `1 000`.');
    expect(text).not.toMatch(/Unknown (currency|network)/);
    expect(t.app.deps.withdrawals.list()).toHaveLength(0);
  });

  it('the card writes a stablecoin’s price with four significant digits ("at $0.9984"), never cents', async () => {
    await setPrices(t, { prices: { USDT: 0.99840704 }, drift: false });
    // The job's own minute may be running with the old price (a job never overlaps itself): asked
    // again until the app holds the price set.
    const usdt = () => t.app.deps.prices.state().assets.find((a) => a.currency === 'USDT')?.current?.price;
    await untilAsync(
      'the price set',
      async () => {
        if (usdt() !== '0.99840704') await t.app.deps.scheduler.runNow('prices.refresh');
        return usdt() === '0.99840704';
      },
      20_000,
    );
    await t.command('/withdraw', `60 USDT BSC ${ALLOWLISTED} ${CLIENT} office rent`, USERS.bob);
    const card = await until('the card', () =>
      t.fake.channel(CHANNELS.approvals).find((m) => visibleText(m).includes('60.00 USDT')),
    );
    expect(visibleText(card)).toMatch(/≈ \$59\.9\d _at \$0\.9984 \(/);
    expect(formatPrice('0.99840704')).toBe('$0.9984');
    expect(formatPrice('64000')).toBe('$64,000.00');
  });

  it('/treasury digest 7: the chart is the last 14 days, titled so, in the asker’s DM', async () => {
    const before = new Set(t.fake.files().map((f) => f.id));
    const { responseUrl } = await t.command('/treasury', 'digest 7', USERS.viewer);
    const [reply] = await t.replies(responseUrl);
    expect(visibleText(reply!)).toContain('The chart of the last 14 days is on its way to your direct messages.');
    const chart = await newFile(before);
    expect(chart.title).toMatch(/^Treasury digest chart \d{4}-\d\d-\d\d \(last 14 days\)$/);
    expect(chart.channel).toMatch(/^D/);
  });

  it('/treasury digest 31: the chart covers the 31 days asked', async () => {
    const before = new Set(t.fake.files().map((f) => f.id));
    const { responseUrl } = await t.command('/treasury', 'digest 31', USERS.viewer);
    const [reply] = await t.replies(responseUrl);
    expect(visibleText(reply!)).toContain('The chart of the last 31 days');
    expect((await newFile(before)).title).toMatch(/\(last 31 days\)$/);
  });
});
