import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_ADDRESSES } from '../../src/clients/known.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // The price job's first run (at start): the lines show values at the cached price.
  await until('the first price refresh', () => t.app.deps.prices.state().lastOkAt !== undefined);
});
afterAll(async () => {
  await t?.stop();
});

const DAY = 86_400_000;
/** 40 records, newest first: 0..39, alternating currencies/types, one with an 18-decimal amount and a comma in its reference. */
function seed() {
  const records = Array.from({ length: 40 }, (_, i) => ({
    transactionType: i % 4 === 3 ? ('Withdrawal' as const) : ('Deposit' as const),
    transactionStatus: i % 5 === 4 ? ('FAILED' as const) : ('SUCCESSFUL' as const),
    currency: i % 2 ? 'ETH' : 'USDT',
    network: i % 2 ? 'ETH' : 'BSC',
    amount: i === 1 ? '0.123456789012345678' : `${100 + i}.50`,
    reference: i === 2 ? 'ref, with "quotes"' : `ref-${i}`,
    transactionTimeStamp: Date.UTC(2026, 10, 20) - i * DAY,
    createdAt: new Date(Date.UTC(2026, 10, 20) - i * DAY).toISOString().replace('Z', ''),
  }));
  t.app.sandbox!.resetTransactions(records);
}

async function tx(text: string, user: string = USERS.viewer) {
  const { res, responseUrl } = await t.command('/tx', text, user);
  expect(res.status).toBe(200);
  const replies = await t.replies(responseUrl);
  return { reply: replies[0]!, text: visibleText(replies[0]!), responseUrl };
}

function buttons(message: Record<string, unknown>): Array<{ action_id: string; value: string }> {
  return ((message.blocks as Array<{ type: string; elements?: unknown[] }>) ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements as Array<{ action_id: string; value: string }>);
}

describe('/tx', () => {
  beforeEach(() => seed());

  it('renders one page with a header, records and Next, and Next/Previous replace the message in place', async () => {
    const first = await tx('size=10');
    expect(first.text).toContain('Page 1 of 4 · 40 records · filters: `none`');
    // Issue 24: each line's value at the cached (today's) price, and the page says it is today's.
    expect(first.text).toMatch(/\*Deposit\* · \*100\.50 USDT\* ≈ \$\d{2,3}\.\d\d · BSC · :white_check_mark: confirmed/);
    expect(first.text).toMatch(/\*0\.123456789012345678 ETH\* ≈ \$\d{3}\.\d\d/);
    expect(first.text).toContain("values (≈ $) at today's price, not the day's");
    expect(first.text).toMatch(/<https:\/\/[^|]+\|0x\w{4}…\w{4}> → <https:\/\/[^|]+\|/);
    expect(first.text).toContain('2026-11-20 00:00 UTC');
    const nav = buttons(first.reply);
    expect(nav.map((b) => b.action_id)).toEqual(['tx_next']);

    const { res, responseUrl } = await t.click(
      USERS.viewer,
      { actionId: 'tx_next', value: nav[0]!.value },
      { message: { ts: '1', blocks: first.reply.blocks as unknown[] } },
    );
    expect(res.status).toBe(200);
    const [page2] = await t.replies(responseUrl);
    expect(page2!.replace_original).toBe(true);
    expect(visibleText(page2!)).toContain('Page 2 of 4');
    expect(visibleText(page2!)).toContain('*110.50 USDT*');
    expect(buttons(page2!).map((b) => b.action_id)).toEqual(['tx_prev', 'tx_next']);

    const prev = buttons(page2!)[0]!;
    const back = await t.click(USERS.viewer, { actionId: 'tx_prev', value: prev.value }, { message: { ts: '1' } });
    const [page1] = await t.replies(back.responseUrl);
    expect(visibleText(page1!)).toContain('Page 1 of 4');
  });

  it('applies every filter, shows them in the header, and keeps them across pages', async () => {
    const r = await tx('currency=usdt network=BSC type=deposit status=successful from=2026-10-15 to=2026-11-20 size=5');
    expect(r.text).toContain(
      'filters: `currency=usdt network=BSC type=deposit status=successful from=2026-10-15 to=2026-11-20`',
    );
    expect(r.text).not.toContain('ETH*');
    expect(r.text).not.toContain('Withdrawal');
    expect(r.text).not.toContain('failed');
    const lines = r.text.split('\n').filter((l) => l.includes('*Deposit*'));
    expect(lines.length).toBe(5);
    const next = buttons(r.reply).find((b) => b.action_id === 'tx_next')!;
    expect(JSON.parse(next.value).f).toMatchObject({ currency: 'usdt', type: 'deposit', from: '2026-10-15' });

    // Dates are whole UTC days, both ends included: 2026-11-18 and 2026-11-19 hold records 2 and 1.
    const days = await tx('from=2026-11-18 to=2026-11-19');
    expect(days.text).toContain('Page 1 of 1 · 2 records ·');
    expect(days.text).toContain('2026-11-19 00:00 UTC');
    expect(days.text).toContain('2026-11-18 00:00 UTC');
    expect(days.text).not.toContain('2026-11-20 00:00 UTC');

    const hash = t.app.sandbox!.transactions()[7]!.transactionHash;
    const byHash = await tx(`hash=${hash}`);
    expect(byHash.text).toContain('Page 1 of 1 · 1 record ·');
    const addr = t.app.sandbox!.transactions()[3]!.toAddress;
    const byAddress = await tx(`address=${addr}`);
    expect(byAddress.text).toMatch(/· [1-9]\d* records? ·/);
  });

  it('speaks the app\'s one vocabulary: "confirmed" in every line, and status=confirmed filters like the service\'s "successful"', async () => {
    const confirmed = await tx('status=confirmed size=20');
    const successful = await tx('status=successful size=20');
    const lines = (r: { text: string }) => r.text.split('\n').filter((l) => l.includes(' · '));
    expect(lines(confirmed).filter((l) => l.includes('*')).length).toBeGreaterThan(0);
    expect(confirmed.text).toContain(':white_check_mark: confirmed');
    expect(confirmed.text).not.toMatch(/:white_check_mark: successful|failed/);
    expect(lines(confirmed).slice(1)).toEqual(lines(successful).slice(1));
    // Thousands grouped, stablecoins with cents.
    t.app.sandbox!.resetTransactions([
      {
        transactionType: 'Deposit',
        transactionStatus: 'SUCCESSFUL',
        currency: 'USDT',
        network: 'BSC',
        amount: '3718.7',
        transactionTimeStamp: Date.UTC(2026, 10, 20),
      },
    ]);
    expect((await tx('')).text).toContain('*3,718.70 USDT*');
  });

  it('says clearly when nothing matches and when a page is past the end', async () => {
    const none = await tx('currency=BTC');
    expect(none.text).toContain('No transactions match the filters `currency=BTC`');
    // Past the end: the last page, and the sentence saying so comes first (status first).
    const past = await tx('page=9 size=10');
    expect(past.text.startsWith('There are only 4 pages; showing page 4.')).toBe(true);
    expect(past.text).toContain('Page 4 of 4 · 40 records');
    expect(buttons(past.reply).map((b) => b.action_id)).toEqual(['tx_prev']);
    const one = await tx('currency=ETH type=withdrawal page=3');
    expect(one.text.startsWith('There is only 1 page; showing page 1.')).toBe(true);
  });

  it('reports unknown keys and bad values instead of ignoring them', async () => {
    const r = await tx('colour=red currency=DOGE status=maybe from=2026-02-31 size=500 loose');
    for (const expected of [
      'unknown filter “colour”',
      'unknown currency “DOGE”',
      'status must be confirmed or failed',
      'from must be a date written YYYY-MM-DD',
      'size must be a whole number from 1 to 50',
      '“loose” is not a filter',
      'Usage: `/tx',
    ]) {
      expect(r.text).toContain(expected);
    }
  });

  it('stays within Block Kit limits at the largest page size', async () => {
    t.app.sandbox!.resetTransactions(
      Array.from({ length: 120 }, (_, i) => ({
        amount: `${i}.123456789012345678`,
        reference: `r${i}`,
        transactionTimeStamp: Date.UTC(2026, 10, 20) - i * 60_000,
      })),
    );
    // 50: the largest page a person can ask (the size the spec documents as accepted).
    const r = await tx('size=50');
    const blocks = r.reply.blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const b of blocks)
      if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(b.type === 'header' ? 150 : 3000);
    expect((r.text.match(/\*Deposit\*|\*Withdrawal\*/g) ?? []).length).toBe(50);
  });

  it('client= finds a client through the addresses the app knows as theirs (generated with /address)', async () => {
    const client = 'bea.lund@example.com';
    const { responseUrl } = await t.command('/address', `${client} USDT BSC`, USERS.viewer);
    await t.replies(responseUrl);
    const known = await until('the address kept', () =>
      t.app.deps.store.all(CLIENT_ADDRESSES).find((g) => g.email === client),
    );
    t.app.sandbox!.resetTransactions([
      {
        transactionType: 'Deposit',
        amount: '70',
        toAddress: known.address,
        transactionTimeStamp: Date.UTC(2026, 10, 20),
      },
      {
        transactionType: 'Withdrawal',
        amount: '30',
        fromAddress: known.address,
        transactionTimeStamp: Date.UTC(2026, 10, 19),
      },
      { transactionType: 'Deposit', amount: '999', transactionTimeStamp: Date.UTC(2026, 10, 18) },
    ]);
    const r = await tx(`client=${client.toUpperCase()}`);
    expect(r.text).toContain('Page 1 of 1 · 2 records · filters: `client=BEA.LUND@EXAMPLE.COM`');
    expect(r.text).toContain('*70.00 USDT*');
    expect(r.text).toContain('*30.00 USDT*');
    expect(r.text).not.toContain('999');
    // With another filter too.
    expect((await tx(`client=${client} type=deposit`)).text).toContain('Page 1 of 1 · 1 record ·');
    // A page past the end of a client's list is clamped the same way.
    expect((await tx(`client=${client} page=5`)).text.startsWith('There is only 1 page; showing page 1.')).toBe(true);

    const unknown = await tx('client=nobody@nowhere.test');
    expect(unknown.text).toContain('No address of nobody@nowhere.test is known to the app yet');
    const bad = await tx('client=not-an-email');
    expect(bad.text).toContain("client must be the client's e-mail address, not “not-an-email”");
  });

  it('status=pending says where pending items are, instead of refusing', async () => {
    const r = await tx('status=pending');
    expect(r.text).toMatch(/^:information_source: Pending items are not in the wallet's transaction list/);
    expect(r.text).toContain('only confirmed and failed transactions');
    expect(r.text).toContain('`/treasury pending`');
    expect(r.text).not.toContain('Usage');
  });

  it('refuses non-viewers', async () => {
    const r = await tx('', USERS.outsider);
    expect(r.text).toContain('not allowed to view addresses and transactions');
  });

  it('exports every matching record as an RFC 4180 CSV in a DM, with progress updates', async () => {
    t.app.sandbox!.resetTransactions(
      Array.from({ length: 230 }, (_, i) => ({
        amount: i === 0 ? '0.123456789012345678' : `${i}.10`,
        reference: i === 1 ? 'line one, "two"\nthree' : `r${i}`,
        currency: 'USDT',
        network: 'BSC',
        transactionTimeStamp: Date.UTC(2026, 10, 20) - i * 60_000,
      })),
    );
    const { res, responseUrl } = await t.command('/tx', 'export currency=USDT', USERS.viewer);
    expect(res.status).toBe(200);
    const file = await (async () => {
      for (let i = 0; i < 200; i++) {
        const f = t.fake.files().find((x) => x.name.endsWith('.csv'));
        if (f) return f;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('no CSV uploaded');
    })();
    expect(file.channel).toBe(t.fake.dmChannel(USERS.viewer));
    const rows = parseCsv(file.content.toString('utf8')) as string[][];
    // The issue adds the booking columns (fee, value date, client, note, people, both references);
    // issue 24 the value in USD and its price's time; issue 38 the batch payout a row belongs to.
    expect(rows[0]).toEqual([
      'createdAt',
      'timestamp',
      'valueDate',
      'type',
      'status',
      'amount',
      'fee',
      'feeCurrency',
      'debited',
      'value_usd',
      'value_usd_at',
      'currency',
      'network',
      'client',
      'payee',
      'fromAddress',
      'toAddress',
      'transactionHash',
      'merchantReference',
      'serviceReference',
      'requester',
      'approvers',
      'note',
      'explorerUrl',
      'batchId',
    ]);
    const col = (name: string) => rows[0]!.indexOf(name);
    expect(rows.length).toBe(231);
    expect(rows[1]![col('amount')]).toBe('0.123456789012345678');
    expect(rows[1]![col('status')]).toBe('confirmed');
    expect(rows[1]![col('valueDate')]).toBe('2026-11-20');
    // A deposit of a past day is valued at the price of its date (issue 40): value_usd_at is that date.
    expect(rows[3]![col('value_usd')]).toMatch(/^\d\.\d\d$/);
    expect(rows[3]![col('value_usd_at')]).toBe(`${rows[3]![col('valueDate')]}T00:00:00.000Z`);
    // RFC 4180 quoting for the comma and quotes; the line break is a space (a cell is one line: outsideCell).
    // A deposit's reference is the service's own.
    expect(rows[2]![col('serviceReference')]).toBe('line one, "two" three');
    expect(file.content.toString('utf8')).toContain('"line one, ""two"" three"');

    const replies = await t.repliesUntil(responseUrl, (r) => String(r.text).includes('Export finished'));
    const texts = replies.map((r) => String(r.text));
    expect(texts[0]).toContain('Exporting transactions');
    expect(texts.at(-1)).toContain('Export finished: 230 records');
    expect(replies.slice(1).every((r) => r.replace_original === true)).toBe(true);
  });

  it('a long export stays within the five posts Slack allows per response_url, and delivers its file', async () => {
    t.app.sandbox!.resetTransactions(
      Array.from({ length: 1200 }, (_, i) => ({
        amount: `${i}.5`,
        transactionTimeStamp: Date.UTC(2026, 10, 20) - i * 60_000,
      })),
    );
    t.app.sandbox!.injectFault('/api/v2/analytics', { kind: 'delay', ms: 350 }, 12);
    const before = t.fake.files().length;
    const { responseUrl } = await t.command('/tx', 'export', USERS.viewer);
    const replies = await t.repliesUntil(responseUrl, (r) => /Export finished|failed/.test(String(r.text)), 15_000);
    expect(String(replies.at(-1)!.text)).toContain('Export finished: 1200 records');
    const posts = t.fake.responses.filter((r) => r.url === responseUrl);
    expect(posts.length).toBeLessThanOrEqual(5);
    expect(posts.length).toBeGreaterThan(2); // some progress was shown
    expect(posts.every((p) => p.status === 200)).toBe(true);
    expect(t.fake.files().length).toBe(before + 1);
  }, 30_000);
});
