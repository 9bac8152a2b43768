/**
 * `/tx batch` through the real Bolt receiver: the recent batch payouts with their references, and
 * one batch row by row (status first, counts by status, each row not sent with the service's
 * reason, where its files are); an unknown or ambiguous reference is said so, escaped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const HEAD = 'address,amount,currency,network,client_email,reference';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function tx(a: TestApp, text: string): Promise<string> {
  const { responseUrl } = await a.command('/tx', text, USERS.viewer);
  const [reply] = await a.replies(responseUrl);
  return visibleText(reply!);
}

describe('/tx batch', () => {
  it('lists the batches, and shows one row by row with each failed row and its reason', async () => {
    t = await startTestApp();
    const a = t;
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    expect(await tx(a, 'batch')).toContain('No batch payouts yet');
    const rows = [
      ...Array.from({ length: 4 }, (_, i) => `${DEST},10,USDT,BSC,${CLIENT},INV-${i + 1}`),
      `${DEST},10,USDT,BSC,nobody@example.com,INV-5`,
    ];
    const out = await a.app.deps.batches!.submit(
      { text: [HEAD, ...rows].join('\n'), fileName: 'march.csv' },
      USERS.alice,
    );
    if (!out.ok) throw new Error(JSON.stringify(out));
    const b = out.batch;
    const ref = b.id.slice(0, 8);
    expect(await tx(a, 'batch')).toMatch(
      new RegExp(`\`${ref}\` · ⏳ waiting for approvals · 5 rows, 50.00 USDT · march.csv`),
    );
    await a.app.deps.batches!.approve(b.id, USERS.carol);
    await until('every row settled', () => a.app.deps.batches!.get(b.id)?.state === 'done', 30_000);

    const shown = await tx(a, `batch ${ref.toUpperCase()}`);
    expect(shown).toContain(`Batch payout ${ref}`);
    expect(shown).toContain('*✅ finished* · 4 of 5 sent · 1 failed');
    expect(shown).toContain('Sent: 4 of 5 · waiting 0 · being sent 0 · failed 1');
    expect(shown).toMatch(/Row 6 · failed · 10\.00 USDT to `0x2222…2222` \(.+\)/);
    expect(shown).toContain('the result file');
    expect(shown).toContain("with this batch's id");
    expect(await tx(a, 'batch')).toContain(`\`${ref}\` · ✅ finished`);

    expect(await tx(a, 'batch <!here>zz')).toContain('No batch payout has the reference “&lt;!here&gt;zz”');
    expect(await tx(a, 'batch 1 2')).toContain('Usage: `/tx batch`');
  });
});
