/**
 * A batch payout's rows screened as single requests are (the rule table's sanctions, look-alike and
 * stale-list rules), through the whole app: `/withdraw batch` with signed Slack requests, the fake
 * Slack, the sandbox, and a sanctions list served over loopback HTTP. A sanctioned row refuses the
 * file (row, column, reason) and the admins are told in private; a look-alike row is flagged on the
 * card with the approvals it adds; the card names the list it was judged with.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
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
// Requests wait 6 hours: the list can turn stale (2 hours) while a batch waits.
const POLICY = parsePolicy(`${TEST_POLICY_YAML.replace('expires_after: 2h', 'expires_after: 6h')}
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

/** The app's (and the sandbox's) clock runs with real time, `offset` ahead of it. */
let offset = 0;
const clock = () => Date.now() + offset;
const HOUR = 3_600_000;

async function app(): Promise<TestApp> {
  offset = 0;
  list = await startListServer(`# OFAC SDN, test copy\n${filler(60)}${SANCTIONED}\n`);
  t = await startTestApp({
    policy: POLICY,
    now: clock,
    sandbox: { now: clock },
    env: { SANCTIONS_LIST_URL: list.url },
  });
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

const approveAs = (a: TestApp, user: string, id: string) => a.app.deps.batches!.approve(id, user);
const auditOf = (a: TestApp, id: string) => a.app.deps.store.all(AUDIT_COLLECTION).filter((e) => e.subject === id);

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

  it('a row listed after the request: the approval rejects the whole batch, the admins are told, it is on the record', async () => {
    const a = await app();
    const LATER = '0x3333333333333333333333333333333333333333';
    expect(await submitPasted(a, [HEAD, row(CLEAN, 'A'), row(LATER, 'B')].join('\n'))).toContain('Requested');
    const b = a.app.deps.batches!.list()[0]!;
    list!.text += `${LATER}\n`;
    await a.app.deps.scheduler.runNow('screening.refresh');
    const out = await approveAs(a, USERS.carol, b.id);
    expect(out).toMatchObject({ ok: false });
    expect(!out.ok && out.message).toMatch(
      /^Rejected: nothing will be sent\. .*row 3: .*0x3333.*The admins have been told\.$/,
    );
    expect(a.app.deps.batches!.get(b.id)).toMatchObject({
      state: 'rejected',
      approvals: [],
      rejection: { user: 'system' },
    });
    expect(auditOf(a, b.id).find((e) => e.action === 'batch_reject')).toMatchObject({ actor: 'system' });
    const dm = await until('the admin told', () => dmsOf(a, USERS.erin).find((m) => m.includes(LATER)));
    expect(dm).toBeTruthy();
    // Another approver's click changes nothing: the batch is no longer waiting, and nothing was sent.
    expect(await approveAs(a, USERS.dave, b.id)).toMatchObject({ ok: false, reason: 'not_pending' });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });

  it('a list turned stale before the approval: above stale_block_above on the total, the approval is refused in its own words', async () => {
    const a = await app();
    // Two rows of 600: each below the $1,000 of stale_block_above, their total above it.
    const big = (address: string, ref: string) => `${address},600,USDT,BSC,${CLIENT},${ref}`;
    expect(await submitPasted(a, [HEAD, big(CLEAN, 'A'), big(CLEAN, 'B')].join('\n'))).toContain('Requested');
    const b = a.app.deps.batches!.list()[0]!;
    list!.down = true;
    await a.app.deps.scheduler.runNow('prices.refresh');
    offset += 3 * HOUR;
    await a.app.deps.scheduler.runNow('prices.refresh');
    await a.app.deps.scheduler.runNow('screening.refresh');
    const out = await approveAs(a, USERS.carol, b.id);
    expect(!out.ok && out.message).toMatch(
      /^The sanctions list is .+ old .*this batch payout's total is ≈ \$1,2\d\d\.\d\d\. Above \$1,000\.00 it cannot be approved until the list is refreshed\.$/,
    );
    expect(a.app.deps.batches!.get(b.id)).toMatchObject({ state: 'pending', approvals: [] });
    list!.down = false;
    await a.app.deps.scheduler.runNow('screening.refresh');
    expect(await approveAs(a, USERS.carol, b.id)).toMatchObject({ ok: true });
  });
});
