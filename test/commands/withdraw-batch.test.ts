/**
 * /withdraw batch through the real Bolt receiver and the fake Slack: the form's file read with
 * files.info and url_private_download (the bot token), every problem of a bad file shown at once,
 * one card in the approvals channel, approved once on its total, every row sent once, the card
 * kept true, and the result file in its thread.
 */
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const HEAD = 'address,amount,currency,network,client_email,reference';
const file = (n: number, amount: (i: number) => string) =>
  [HEAD, ...Array.from({ length: n }, (_, i) => `${DEST},${amount(i)},USDT,BSC,${CLIENT},INV-${i + 1}`)].join('\n');

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function submitFile(a: TestApp, name: string, text: string) {
  await a.command('/withdraw', 'batch', USERS.alice);
  const view = await until('the batch form', () => a.fake.views().find((v) => v.callback_id === 'wd_batch_modal'));
  expect(JSON.stringify(view.blocks)).toContain('file_input');
  const id = a.fake.userUpload(USERS.alice, name, text);
  const res = await a.submitView(USERS.alice, {
    callbackId: 'wd_batch_modal',
    viewId: view.id,
    values: { wd_batch_file: { value: { type: 'file_input', files: [{ id }] } } },
  });
  expect(res.status).toBe(200);
  // Answered at once; the check is shown in the form when done.
  const shown = await a.fake.waitFor('views.update', (c) => c.args.view_id === view.id, 20_000);
  return JSON.stringify(shown.args.view);
}

const card = (a: TestApp) =>
  until('the batch card', () =>
    a.fake.channel(CHANNELS.approvals).find((m) => !m.thread_ts && visibleText(m).includes('Batch payout')),
  );
const click = (a: TestApp, user: string, actionId: string, id: string, m: FakeMessage) =>
  a.click(user, { actionId, value: id }, { channel: CHANNELS.approvals, message: { ts: m.ts, blocks: m.blocks } });

describe('/withdraw batch', () => {
  it('reads the uploaded file with the bot token, posts one card, is approved once on its total and sends every row once', async () => {
    t = await startTestApp();
    const a = t;
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    // 30 rows of 600: each alone needs one approval; the total (18,000) the top tier, with Erin.
    const shown = await submitFile(
      a,
      'november.csv',
      file(30, () => '600'),
    );
    expect(shown).toContain('Requested');
    const download = a.fake.calls('file_download')[0];
    expect(download?.token).toBe(a.botToken);
    const batch = a.app.deps.batches!.list()[0]!;
    let m = await card(a);
    expect(visibleText(m)).toMatch(/Waiting for 3 more approvals/);
    // The full rows are in the card's thread from the start (the card shows the five largest).
    const rowsFile = await until('the rows file', () =>
      a.fake.files().find((f) => f.thread_ts === m.ts && f.name.endsWith('-rows.csv')),
    );
    const listed = parse(rowsFile.text, { columns: true }) as Array<Record<string, string>>;
    expect(listed).toHaveLength(30);
    expect(listed.map((l) => l.reference)).toEqual(Array.from({ length: 30 }, (_, i) => `INV-${i + 1}`));
    expect(listed.every((l) => l.amount === '600' && l.address === DEST)).toBe(true);
    expect(visibleText(m)).toContain('18,000');
    expect(visibleText(m)).toContain('Five largest rows');
    await click(a, USERS.carol, 'batch_approve', batch.id, m);
    await click(a, USERS.dave, 'batch_approve', batch.id, m);
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    await click(a, USERS.erin, 'batch_approve', batch.id, m);
    await until('every row sent', () => a.app.deps.batches!.get(batch.id)?.state === 'done', 30_000);
    expect(a.app.sandbox!.stats.withdrawals).toBe(30);
    m = await until(
      'the card says sent',
      () => {
        const c = a.fake.channel(CHANNELS.approvals).find((x) => x.ts === m.ts);
        return c && visibleText(c).includes('30 of 30 sent') ? c : undefined;
      },
      20_000,
    );
    // No card of its own for any row: the batch's card is the one message in the channel.
    expect(a.fake.channel(CHANNELS.approvals).filter((x) => !x.thread_ts || x.thread_ts === x.ts)).toHaveLength(1);
    const result = await until(
      'the result file',
      () => a.fake.files().find((f) => f.thread_ts === m.ts && f.name.endsWith('-results.csv')),
      20_000,
    );
    const lines = parse(result.text, { columns: true }) as Array<Record<string, string>>;
    expect(lines).toHaveLength(30);
    expect(lines.every((l) => l.status === 'sent')).toBe(true);
    expect(a.logs()).not.toContain(a.botToken);
    // The digest names the batch and its rows sent, with their total.
    const { responseUrl } = await a.command('/treasury', 'digest', USERS.viewer);
    const [digest] = await a.replies(responseUrl);
    expect(visibleText(digest!)).toContain('*Batch payouts*: 1 requested · 1 finished · 30 rows sent (18,000.00 USDT)');
  });

  it('answers a file with 20 bad rows with 20 precise errors in the form, and requests nothing', async () => {
    t = await startTestApp();
    const shown = await submitFile(
      t,
      'bad.csv',
      file(40, (i) => (i % 2 ? '10' : `${i}.1234567`)),
    );
    expect(shown).toContain('20 problems');
    expect(shown).toContain('Row 2, amount');
    expect(shown).toContain('Row 40, amount');
    expect(t.app.deps.batches!.list()).toEqual([]);
  });

  it('escapes the file’s own text in the errors it shows (no mention, link or formatting from the file)', async () => {
    t = await startTestApp();
    const shown = await submitFile(t, 'bad.csv', `${HEAD},<!channel>\n${DEST},10,USDT,BSC,${CLIENT},A,x`);
    expect(shown).toContain('&lt;!channel&gt;');
    expect(shown).not.toContain('<!channel>');
    expect(t.app.deps.batches!.list()).toEqual([]);
    expect(t.fake.channel(CHANNELS.approvals)).toEqual([]);
  });
});
