/**
 * A batch payout's rows screened as single requests are (the rule table's sanctions, look-alike and
 * stale-list rules), through the whole app: `/withdraw batch` with signed Slack requests, the fake
 * Slack, the sandbox, and a sanctions list served over loopback HTTP. A sanctioned row refuses the
 * file (row, column, reason) and the admins are told in private; a look-alike row is flagged on the
 * card with the approvals it adds; the card names the list it was judged with.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { CHANNELS, startTestApp, TEST_POLICY_YAML, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { filler, startListServer, type ListServer } from '../screening/list-server.js';

const CLIENT = 'payouts@client.example';
const SANCTIONED = '0xabcdef0123456789abcdef0123456789abcdef01';
const CLEAN = '0x2222222222222222222222222222222222222222';
// The allowlist's "Exchange hot wallet" is 0x1111…1111: the same first and last four, another address.
const LOOKALIKE = '0x1111999999999999999999999999999999991111';
const HEAD = 'address,amount,currency,network,client_email,reference';
const row = (address: string, ref: string) => `${address},10,USDT,BSC,${CLIENT},${ref}`;
const POLICY = parsePolicy(`${TEST_POLICY_YAML}
screening:
  refresh: 1h
  max_age: 2h
  stale_block_above: 1000
`);

let t: TestApp | undefined;
let list: ListServer | undefined;
afterEach(async () => {
  await t?.stop();
  await list?.close();
  t = list = undefined;
});

async function app(): Promise<TestApp> {
  list = await startListServer(`# OFAC SDN, test copy\n${filler(60)}${SANCTIONED}\n`);
  t = await startTestApp({ policy: POLICY, env: { SANCTIONS_LIST_URL: list.url } });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  await t.app.deps.scheduler.runNow('screening.refresh');
  return t;
}

/** `/withdraw batch` with the file pasted; what the form shows once checked. */
async function submitPasted(a: TestApp, text: string): Promise<string> {
  await a.command('/withdraw', 'batch', USERS.alice);
  const view = await until('the batch form', () => a.fake.views().find((v) => v.callback_id === 'wd_batch_modal'));
  await a.submitView(USERS.alice, {
    callbackId: 'wd_batch_modal',
    viewId: view.id,
    values: { wd_batch_paste: { value: { type: 'plain_text_input', value: text } } },
  });
  const shown = await a.fake.waitFor('views.update', (c) => c.args.view_id === view.id, 20_000);
  return visibleText({ blocks: (shown.args.view as { blocks: unknown[] }).blocks });
}

const dmsOf = (a: TestApp, user: string) =>
  a.fake.channel(a.fake.dmChannel(user)).map((m) => visibleText(m as { text?: unknown }));

describe('screening a batch payout', () => {
  it('a sanctioned row refuses the file with its row and reason, nothing is requested, and the admins are told', async () => {
    const a = await app();
    const shown = await submitPasted(a, [HEAD, row(CLEAN, 'A'), row(SANCTIONED, 'B'), row(CLEAN, 'C')].join('\n'));
    expect(shown).toContain('Not requested: 1 problem');
    expect(shown).toMatch(/Row 3, address: .*is on the OFAC sanctions list of/);
    expect(a.app.deps.batches!.list()).toEqual([]);
    const dm = await until('the admin told', () =>
      dmsOf(a, USERS.erin).find((m) => m.includes('A withdrawal to a sanctioned address was refused')),
    );
    expect(dm).toContain(SANCTIONED);
    expect(a.fake.channel(CHANNELS.approvals)).toEqual([]);
  });

  it('a look-alike row is flagged on the card with the approval it adds; the card names the list it was judged with', async () => {
    const a = await app();
    const shown = await submitPasted(a, [HEAD, row(CLEAN, 'A'), row(LOOKALIKE, 'B')].join('\n'));
    expect(shown).toContain('Requested');
    const b = a.app.deps.batches!.list()[0]!;
    expect(b.screening).toMatchObject({ sanctioned: [], lookalikes: [{ row: 3, label: 'Exchange hot wallet' }] });
    // 20 USDT needs one approval; the look-alike adds one, once for the batch.
    expect(b.tier.approvals).toBe(2);
    const card = await until('the batch card', () =>
      a.fake.channel(CHANNELS.approvals).find((m) => visibleText(m).includes('Batch payout')),
    );
    const text = visibleText(card);
    expect(text).toMatch(/No row on the OFAC sanctions list of/);
    expect(text).toContain('1 row looks like a known address (+1 approval, once)');
    expect(text).toContain('Row 3 · looks like *Exchange hot wallet* (0x1111…1111), but is a different address');
    expect(text).toMatch(/Allowlist\*\n2 rows to addresses not on it/);
  });
});
