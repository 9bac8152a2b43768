/**
 * Withdrawals end to end: signed slash commands, modal submissions and button clicks in,
 * the sandbox wallet service behind, and what people see in the fake Slack out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { FakeMessage } from '../helpers/fake-slack.js';
import { clientOnRecord } from '../helpers/clients.js';
import { until } from '../helpers/wait.js';

/** Every DM ends pointing at the card: its permalink once known, else the approvals channel. */
const CARD_POINTER = new RegExp(`\\n(<https?://\\S+\\|Open the card>|The card is in <#${CHANNELS.approvals}>\\.)$`);
import {
  CHANNELS,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  visibleText,
  withdrawFormValues,
  type TestApp,
} from '../helpers/treasury-app.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const LISTED = '0x1111111111111111111111111111111111111111';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function app(o: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  t = await startTestApp(o);
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  t.app.sandbox!.setBalance(CLIENT, 'ETH', 'ETH', '100');
  // A client the app has seen (as after `/address`): new clients have tests of their own (test/commands/clients.test.ts).
  await clientOnRecord(t.app.deps, CLIENT, [
    ['USDT', 'BSC'],
    ['ETH', 'ETH'],
  ]);
  return t;
}

const topLevel = (a: TestApp, channel: string) =>
  a.fake.channel(channel).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const card = (a: TestApp) => until('the approval card', () => topLevel(a, CHANNELS.approvals)[0]);
const cardText = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });
const buttonIds = (m: FakeMessage) =>
  ((m.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!.map((e) => e.action_id));
const dms = (a: TestApp, user: string) => a.fake.channel(a.fake.dmChannel(user)).map((m) => m.text ?? '');
const only = (a: TestApp): WithdrawalRequest => {
  const all = a.app.deps.withdrawals.list();
  expect(all).toHaveLength(1);
  return all[0]!;
};

async function requestOneLine(a: TestApp, text: string, user: string = USERS.alice) {
  const { responseUrl } = await a.command('/withdraw', text, user);
  const [reply] = await a.replies(responseUrl);
  return visibleText(reply!);
}

async function click(a: TestApp, user: string, actionId: string, message: FakeMessage, opts: { retry?: boolean } = {}) {
  const id = only(a).id;
  const { res, responseUrl } = await a.click(
    user,
    { actionId, value: id },
    {
      channel: CHANNELS.approvals,
      message: { ts: message.ts, blocks: message.blocks },
      // As Slack redelivers a request it did not see acknowledged in time.
      ...(opts.retry ? { send: { retryNum: 1, retryReason: 'http_timeout' } } : {}),
    },
  );
  expect(res.status).toBe(200);
  return responseUrl;
}

describe('/withdraw: requesting', () => {
  it('opens the modal for requesters and refuses everyone else', async () => {
    const a = await app();
    await a.command('/withdraw', '', USERS.alice);
    const view = await until('the modal', () => a.fake.views().find((v) => v.callback_id === 'wd_request_modal'));
    expect(JSON.stringify(view.blocks)).toContain('Destination address');
    const refused = await requestOneLine(a, '', USERS.viewer);
    expect(refused).toContain('not allowed to request withdrawals');
  });

  it('shows validation errors next to the field in the modal, and creates nothing', async () => {
    const a = await app();
    const submit = (values: Record<string, string>) =>
      a.submitView(USERS.alice, {
        callbackId: 'wd_request_modal',
        values: withdrawFormValues({
          amount: values.amount ?? '10',
          currency: values.currency ?? 'USDT',
          network: values.network ?? 'BSC',
          destination: values.destination ?? DEST,
          client: values.client ?? CLIENT,
          note: values.note ?? null,
        }),
      });
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ amount: 'ten' }, 'wd_amount', /amount/i],
      [{ amount: '0' }, 'wd_amount', /greater than zero/i],
      [{ amount: '1.1234567' }, 'wd_amount', /6 decimal/],
      [{ destination: '0x123' }, 'wd_destination', /address/i],
      [{ destination: 'TE7Ut7NwLifP2XPdtz761z57MkEWJUTu7m' }, 'wd_destination', /address/i],
      [{ client: 'nobody' }, 'wd_client', /e-mail/i],
      [{ amount: '60000' }, 'wd_amount', /daily limit/i],
    ];
    for (const [values, block, message] of cases) {
      const res = await submit(values);
      expect(res.status).toBe(200);
      const body = res.json as { response_action: string; errors: Record<string, string> };
      expect(body.response_action, JSON.stringify(values)).toBe('errors');
      expect(body.errors[block], JSON.stringify(body)).toMatch(message);
    }
    expect(a.app.deps.withdrawals.list()).toEqual([]);

    const ok = await submit({ amount: '250.5', note: 'invoice 1042' });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('');
    const c = await card(a);
    expect(cardText(c)).toContain('250.50 USDT');
    expect(cardText(c)).toContain('invoice 1042');
  });

  it('a note is required above withdrawals.note_required_above: refused next to the note field, and in one line with where it goes', async () => {
    const policy = parsePolicy(
      TEST_POLICY_YAML.replace(
        '  daily_limit: { USDT: 50000 }',
        '  daily_limit: { USDT: 50000 }\n  note_required_above: { USDT: 1000 }',
      ),
    );
    const a = await app({ policy });
    const form = (amount: string, note: string | null) => ({
      callbackId: 'wd_request_modal',
      viewId: `V0NOTE${amount}${note ? 'N' : ''}`,
      values: withdrawFormValues({ amount, destination: DEST, client: CLIENT, note }),
    });
    const refused = await a.submitView(USERS.alice, form('1000.01', null));
    expect(refused.json).toEqual({
      response_action: 'errors',
      errors: {
        wd_note: 'A note is required above 1,000.00 USDT: say what this payout is for (the approvers read it).',
      },
    });
    expect(await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT}`)).toBe(
      ':no_entry: Not requested: A note is required above 1,000.00 USDT: say what this payout is for (the approvers read it).\n' +
        'Add the note after the client e-mail: `/withdraw <amount> <currency> <network> <destination> <client-email> what it is for`',
    );
    expect(a.app.deps.withdrawals.list()).toEqual([]);
    // At the threshold, or with a note, it goes through.
    expect((await a.submitView(USERS.alice, form('1000', null))).body).toBe('');
    expect(await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT} March invoice`)).toMatch(
      /^⏳ Requested · 5,000.00 USDT on BSC/,
    );
    expect(a.app.deps.withdrawals.list()).toHaveLength(2);
  });

  it('a form submitted twice (Slack timed out the first answer) asks for one payout', async () => {
    const a = await app();
    const form = {
      callbackId: 'wd_request_modal',
      viewId: 'V0SAMEFORM',
      values: withdrawFormValues({ amount: '75', destination: DEST, client: CLIENT, note: null }),
    };
    const [first, second] = await Promise.all([a.submitView(USERS.alice, form), a.submitView(USERS.alice, form)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(only(a).amount).toBe('75');
    await card(a);
    await new Promise((r) => setTimeout(r, 200));
    expect(topLevel(a, CHANNELS.approvals)).toHaveLength(1);
    // Another form is another request.
    await a.submitView(USERS.alice, { ...form, viewId: 'V0OTHERFORM' });
    expect(a.app.deps.withdrawals.list()).toHaveLength(2);
  });

  it('posts an approval card with everything an approver needs, asks each approver once, and answers the requester once', async () => {
    const a = await app();
    const reply = await requestOneLine(a, `5000 usdt bsc ${DEST} ${CLIENT} supplier payout #7`);
    expect(reply).toContain(`the approval card is in <#${CHANNELS.approvals}>`);
    expect(reply).toMatch(/^⏳ Requested · 5,000.00 USDT on BSC is waiting for 2 approvals/);
    const c = await card(a);
    const r = only(a);
    const text = cardText(c);
    // Status first, then the risk flags in their own section, before any field.
    const blocks = c.blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks[0]).toMatchObject({ type: 'header', text: { text: '⏳ 0 of 2 approvals · 5,000.00 USDT on BSC' } });
    expect(blocks[1]!.text!.text).toBe(':warning: *Check before approving:* not on the allowlist · never paid before');
    expect(c.text).toBe(
      `⏳ 0 of 2 approvals · 5,000.00 USDT on BSC to 0x2222…2222 (ref ${r.merchantReference.slice(0, 8)})`,
    );
    for (const s of [
      `<@${USERS.alice}>`,
      `*From client wallet*\n${CLIENT}`,
      `https://testnet.bscscan.com/address/${DEST}`,
      'supplier payout #7',
      '*Approvals* (up to 10,000.00 USDT: 2 approvals)',
      '*2 more approvals needed*',
      '*Fee (estimate)*\n_unknown yet_',
      'USDT daily limit left: 45,000.00 USDT of 50,000.00 USDT',
      'Expires <!date^',
      `Ref \`${r.merchantReference.slice(0, 8)}\``,
      `Details · merchant reference \`${r.merchantReference}\` · request \`${r.id}\``,
    ]) {
      expect(text, s).toContain(s);
    }
    expect(text).not.toContain('Client:');
    expect(buttonIds(c)).toEqual(['wd_approve', 'wd_reject']);
    // Every approver but the requester is asked by DM, once, pointing at the card.
    for (const user of [USERS.carol, USERS.dave, USERS.erin]) {
      const [dm] = await until(`the DM to ${user}`, () => dms(a, user).length > 0 && dms(a, user));
      expect(dm).toContain(
        `⏳ Your approval is asked · 5,000.00 USDT on BSC to \`0x2222…2222\`, requested by <@${USERS.alice}>`,
      );
      expect(dm).toContain('not on the allowlist, never paid before');
      expect(dm).toMatch(CARD_POINTER);
    }
    await a.app.deps.outbox.drain();
    for (const user of [USERS.carol, USERS.dave, USERS.erin]) expect(dms(a, user)).toHaveLength(1);
    // The one-line request was answered where it was typed: no DM saying the same.
    expect(dms(a, USERS.alice)).toEqual([]);
  });

  it('asks the approvers once the card is posted, however late: a link to the card, once each', async () => {
    const a = await app();
    // Slack turns the card away at first (rate limited); the outbox posts it a second later.
    let refused = 0;
    a.fake.setGate((method, args) =>
      method === 'chat.postMessage' && args.channel === CHANNELS.approvals && refused++ === 0
        ? { retryAfter: 1 }
        : undefined,
    );
    await requestOneLine(a, `5000 usdt bsc ${DEST} ${CLIENT} supplier payout #7`);
    const c = await card(a);
    expect(refused).toBeGreaterThan(1);
    for (const user of [USERS.carol, USERS.dave, USERS.erin]) {
      const [dm] = await until(`the DM to ${user}`, () => dms(a, user).length > 0 && dms(a, user));
      // The link is the card's own permalink: the DM was written after the card existed.
      expect(dm).toMatch(/<https?:\/\/\S+\|Open the card>$/);
      expect(dm).toContain(c.ts.replace('.', ''));
    }
    await a.app.deps.outbox.drain();
    for (const user of [USERS.carol, USERS.dave, USERS.erin]) expect(dms(a, user)).toHaveLength(1);
  });

  it('a request from the form is confirmed once, by DM', async () => {
    const a = await app();
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      viewId: 'V0FORMDM',
      values: withdrawFormValues({ amount: '75', destination: DEST, client: CLIENT, note: null }),
    });
    expect(res.status).toBe(200);
    await card(a);
    // The DM goes out once the card is posted (it links to it).
    await until('the requester DM', () => dms(a, USERS.alice).length > 0);
    await a.app.deps.outbox.drain();
    const mine = dms(a, USERS.alice);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(
      /^⏳ Requested · your withdrawal of 75.00 USDT on BSC to `0x2222…2222` is waiting for 1 approval\./,
    );
  });

  it('refuses in plain words: tier, allowlist in enforce mode, decimals', async () => {
    const enforce = parsePolicy(
      TEST_POLICY_YAML.replace('mode: warn', 'mode: enforce').replace(
        '      - { approvals: 3, must_include: [U0ERIN001] }',
        '',
      ),
    );
    const a = await app({ policy: enforce });
    // Plain words, no rule names.
    expect(await requestOneLine(a, `10 USDT BSC ${DEST} ${CLIENT}`)).toMatch(
      /^:no_entry: Not requested: 0x2222\S+ on BSC is not on the allowlist/,
    );
    expect(await requestOneLine(a, `20000 USDT BSC ${LISTED} ${CLIENT}`)).toMatch(
      /^:no_entry: Not requested: No approval tier of the policy covers 20,000.00 USDT/,
    );
    expect(await requestOneLine(a, `1.0000001 USDT BSC ${LISTED} ${CLIENT}`)).toBe(
      ':no_entry: Not requested: Amount refused: USDT allows at most 6 decimal places, 1.0000001 has 7.',
    );
    // Values left out are each named (issue 25), with the usage line for the order.
    expect(await requestOneLine(a, `10 USDT BSC`)).toBe(
      ':no_entry: Not requested: 2 things to fix:\n' +
        '• Destination: Enter the destination address.\n' +
        '• Client e-mail: Enter the client’s e-mail (whose wallet the funds leave from).\n' +
        'Usage: `/withdraw` opens a form, or `/withdraw <amount> <currency> <network> <destination> <client-email> [note...]`',
    );
    const ok = await requestOneLine(a, `10 USDT BSC ${LISTED} ${CLIENT}`);
    expect(ok).toContain('Requested · 10.00 USDT on BSC');
    expect(cardText(await card(a))).toContain('allowlisted: Exchange hot wallet');
  });
});

describe('/withdraw: every problem at once (issue 25)', () => {
  const NOTE_POLICY = () =>
    parsePolicy(
      TEST_POLICY_YAML.replace(
        '  daily_limit: { USDT: 50000 }',
        '  daily_limit: { USDT: 50000 }\n  note_required_above: { USDT: 1000 }',
      ),
    );

  it('an empty form names each missing field, and never an unknown currency ""', async () => {
    const a = await app();
    const empty = { value: { type: 'plain_text_input', value: null } };
    const unselected = { value: { type: 'static_select', selected_option: null } };
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      values: {
        wd_amount: empty,
        wd_currency: unselected,
        wd_network: unselected,
        wd_destination: empty,
        wd_client: { value: { type: 'email_text_input', value: null } },
        wd_note: empty,
      },
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: {
        wd_amount: 'Enter the amount, e.g. 250.50.',
        wd_currency: 'Choose the currency.',
        wd_network: 'Choose the network.',
        wd_destination: 'Enter the destination address.',
        wd_client: 'Enter the client’s e-mail (whose wallet the funds leave from).',
      },
    });
    expect(a.app.deps.withdrawals.list()).toEqual([]);
  });

  it('a form with several wrong fields gets every error in one answer, "5,000 USDT" answered in words', async () => {
    const a = await app({ policy: NOTE_POLICY() });
    const res = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      values: withdrawFormValues({ amount: '5,000 USDT', destination: 'tb1qnotonbsc', client: 'nobody', note: null }),
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: {
        wd_amount: 'Write the number only: the currency has its own field.',
        wd_destination:
          "Not an address on BSC (BEP-20): expected 0x followed by 40 hexadecimal characters (USDT on BSC uses BSC's addresses).",
        wd_client: '"nobody" is not an e-mail address.',
      },
    });
    // Decimals, tier and the note are judged together too, each next to its field.
    const more = await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      values: withdrawFormValues({ amount: '2000.1234567', destination: DEST, client: CLIENT, note: null }),
    });
    const errors = (more.json as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(['wd_amount', 'wd_note']);
    expect(errors.wd_amount).toContain('USDT allows at most 6 decimal places');
    expect(errors.wd_note).toContain('A note is required above 1,000.00 USDT');
    expect(a.app.deps.withdrawals.list()).toEqual([]);
  });

  it('the note hint says the amount in words, never a config key', async () => {
    const a = await app({ policy: NOTE_POLICY() });
    await a.command('/withdraw', '', USERS.alice);
    const view = await until('the modal', () => a.fake.views().find((v) => v.callback_id === 'wd_request_modal'));
    const note = (view.blocks as Array<{ block_id?: string; hint?: { text: string } }>).find(
      (b) => b.block_id === 'wd_note',
    );
    expect(note?.hint?.text).toBe('What the payout is for (the approvers read it). Required above 1,000.00 USDT.');
    expect(JSON.stringify(view)).not.toMatch(/note_required_above|withdrawals\./);
  });

  it('a one-line /withdraw names every problem in one reply, typed text escaped', async () => {
    const a = await app();
    expect(await requestOneLine(a, '5000USDT <!here> MOON 0x12 nobody')).toBe(
      ':no_entry: Not requested: 4 things to fix:\n' +
        '• Amount: Write the number only: the currency has its own field.\n' +
        '• Currency: Unknown currency "&lt;!here&gt;". Accepted: BTC, LTC, BNB, USDT, DAI, BUSD, XEND, ETH, MATIC (POLYGON), WNT, USDC, cUSD, cEUR, CELO, TRX, USDJ, TUSD.\n' +
        '• Network: Unknown network "MOON". Accepted: BSC, ETH (ETHEREUM), POLYGON (MATIC), CELO, ARBITRUM, AVALANCHE, HECOCHAIN (HECO), TRON.\n' +
        '• Client e-mail: "nobody" is not an e-mail address.',
    );
    expect(a.app.deps.withdrawals.list()).toEqual([]);
  });
});

describe('/withdraw: approving', () => {
  it('refuses those who may not decide, privately, and changes nothing', async () => {
    const a = await app();
    await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    for (const [user, expected] of [
      [USERS.alice, /your own withdrawal request/],
      [USERS.viewer, /not an approver/],
    ] as const) {
      const url = await click(a, user, 'wd_approve', c);
      const [reply] = await a.replies(url);
      expect(reply!.response_type).toBe('ephemeral');
      expect(String(reply!.text)).toMatch(expected);
    }
    await click(a, USERS.carol, 'wd_approve', c);
    await until('the first approval', () => only(a).approvals.length === 1);
    const again = await click(a, USERS.carol, 'wd_approve', c);
    expect(String((await a.replies(again))[0]!.text)).toMatch(/already approved/);
    expect(only(a)).toMatchObject({ state: 'pending', approvals: [{ user: USERS.carol }] });
    const updated = await until(
      'the card update',
      () =>
        cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*1 more approval needed*') &&
        topLevel(a, CHANNELS.approvals)[0],
    );
    expect(cardText(updated)).toContain(`:white_check_mark: <@${USERS.carol}>`);
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });

  it('concurrent approvals, a double click and a retried interaction send exactly once; the card and the requester show the result', async () => {
    const a = await app();
    await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    await Promise.all([
      click(a, USERS.carol, 'wd_approve', c),
      click(a, USERS.dave, 'wd_approve', c),
      click(a, USERS.dave, 'wd_approve', c),
      click(a, USERS.erin, 'wd_approve', c),
      click(a, USERS.carol, 'wd_approve', c, { retry: true }),
      click(a, USERS.dave, 'wd_approve', c, { retry: true }),
    ]);
    const done = await until('completion', () => only(a).state === 'completed' && only(a));
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    expect(a.app.sandbox!.transactions().filter((x) => x.reference === done.merchantReference)).toHaveLength(1);
    expect(done.approvals).toHaveLength(2);
    const final = await until('the final card', () => {
      const m = topLevel(a, CHANNELS.approvals)[0]!;
      return cardText(m).includes('*Sent*') && m;
    });
    // The sandbox charges its fee on top of the amount: the payee receives all of it.
    expect((final.blocks as Array<{ type: string; text?: { text: string } }>)[0]!.text!.text).toBe(
      '✅ Sent · 5,000.00 USDT on BSC',
    );
    expect(final.text).toMatch(/^✅ Sent · 5,000.00 USDT on BSC to /);
    expect(cardText(final)).toContain('*Sent*: Debited 5,001.00 USDT · delivered 5,000.00 USDT · fee 1.00 USDT.');
    expect(cardText(final)).toContain(`service reference \`${done.result!.serviceReference}\``);
    expect(buttonIds(final)).toEqual([]);
    await until('the completion DM', () => dms(a, USERS.alice).some((m) => m.includes('✅ Sent')));
    await a.app.deps.outbox.drain();
    // One DM for the outcome: not "being sent" a second before "sent".
    const outcome = dms(a, USERS.alice);
    expect(outcome).toHaveLength(1);
    expect(outcome[0]!.split('\n')[0]).toBe(
      '✅ Sent · your withdrawal of 5,000.00 USDT on BSC to `0x2222…2222`: Debited 5,001.00 USDT · delivered 5,000.00 USDT · fee 1.00 USDT.',
    );
    expect(outcome[0]).toMatch(CARD_POINTER);
    // The thread says who approved, in plain sentences (no raw mrkdwn in notifications).
    const thread = a.fake
      .thread(CHANNELS.approvals, final.ts)
      .filter((m) => m.ts !== final.ts)
      .map((m) => m.text ?? '');
    expect(thread.length).toBeGreaterThanOrEqual(2);
    for (const line of thread) expect(line).not.toMatch(/\*/);
    expect(thread.filter((l) => / approved \(\d of 2\)\.$/.test(l))).toHaveLength(2);
    // One card, edited in place: never a second top-level message for the same request.
    expect(topLevel(a, CHANNELS.approvals)).toHaveLength(1);
  });

  it('Reject tells those who may not reject at once, without asking for a reason', async () => {
    const a = await app();
    await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    for (const [user, expected] of [
      [USERS.viewer, /not an approver/],
      [USERS.alice, /your own withdrawal request/],
    ] as const) {
      const url = await click(a, user, 'wd_reject', c);
      expect(String((await a.replies(url))[0]!.text)).toMatch(expected);
    }
    await click(a, USERS.carol, 'wd_approve', c);
    await until('the approval', () => only(a).approvals.length === 1);
    const approvedAlready = await click(a, USERS.carol, 'wd_reject', c);
    expect(String((await a.replies(approvedAlready))[0]!.text)).toMatch(
      /already approved this request, so you cannot also reject it/,
    );
    expect(a.fake.views().filter((v) => v.callback_id === 'wd_reject_modal')).toEqual([]);
    // The domain refuses it too, whatever the button does.
    const direct = await a.app.deps.withdrawals.reject(only(a).id, USERS.carol, 'changed my mind');
    expect(!direct.ok && direct.reason).toBe('already_approved');
  });

  it('a rejection asks for a reason, ends the request, and tells the requester', async () => {
    const a = await app();
    await requestOneLine(a, `50 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    await click(a, USERS.dave, 'wd_reject', c);
    const view = await until('the reason modal', () => a.fake.views().find((v) => v.callback_id === 'wd_reject_modal'));
    const empty = await a.submitView(USERS.dave, {
      callbackId: 'wd_reject_modal',
      privateMetadata: view.private_metadata!,
      values: { reason: { value: { type: 'plain_text_input', value: ' ' } } },
    });
    expect((empty.json as { errors: Record<string, string> }).errors.reason).toMatch(/reason/);
    const res = await a.submitView(USERS.dave, {
      callbackId: 'wd_reject_modal',
      privateMetadata: view.private_metadata!,
      values: { reason: { value: { type: 'plain_text_input', value: 'Wrong destination' } } },
    });
    expect(res.status).toBe(200);
    expect(only(a)).toMatchObject({ state: 'rejected', rejection: { user: USERS.dave, reason: 'Wrong destination' } });
    const final = await until(
      'the rejected card',
      () => cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*Rejected*') && topLevel(a, CHANNELS.approvals)[0],
    );
    expect(buttonIds(final)).toEqual([]);
    expect(cardText(final)).toContain('Wrong destination');
    const [rejectionDm] = await until('the rejection DM', () => dms(a, USERS.alice).length > 0 && dms(a, USERS.alice));
    // The quote ends the sentence: no stray full stop after it.
    expect(rejectionDm!.split('\n')[0]).toBe(
      `⛔ Rejected · your withdrawal of 50.00 USDT on BSC to \`0x2222…2222\` was rejected by <@${USERS.dave}>: “Wrong destination”`,
    );
    expect(rejectionDm).toMatch(CARD_POINTER);
    expect((final.blocks as Array<{ type: string; text?: { text: string } }>)[0]!.text!.text).toBe(
      '⛔ Rejected · 50.00 USDT on BSC',
    );
    // The audit row stands alone: who, what, amount, payee, reference, reason.
    const { responseUrl } = await a.command('/treasury', 'audit', USERS.erin);
    const audit = visibleText((await a.replies(responseUrl))[0]!);
    expect(audit).toContain(
      `<@${USERS.dave}> · ⛔ rejected · 50.00 USDT on BSC to \`0x2222…2222\` · ref \`${only(a).merchantReference.slice(0, 8)}\` · “Wrong destination”`,
    );
    expect(audit).toContain(`<@${USERS.alice}> · requested · 50.00 USDT on BSC to \`0x2222…2222\``);
    const late = await click(a, USERS.carol, 'wd_approve', final);
    expect(String((await a.replies(late))[0]!.text)).toBe(
      ':no_entry: This request is no longer waiting for decisions: it is rejected.',
    );
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
  });
});

describe('/withdraw: outcomes', () => {
  it('a 400 shows the service message and is not retried', async () => {
    const a = await app();
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '5');
    await requestOneLine(a, `50 USDT BSC ${DEST} ${CLIENT}`);
    await click(a, USERS.carol, 'wd_approve', await card(a));
    const failed = await until('failure', () => only(a).state === 'failed' && only(a));
    expect(failed.error?.kind).toBe('rejected');
    const final = await until(
      'the failed card',
      () => cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*Failed:*') && topLevel(a, CHANNELS.approvals)[0],
    );
    expect(cardText(final)).toMatch(/balance/i);
    expect(cardText(final)).toContain('it will not be retried');
    expect((final.blocks as Array<{ type: string; text?: { text: string } }>)[0]!.text!.text).toBe(
      '❌ Failed · 50.00 USDT on BSC',
    );
    const [failedDm] = await until('the failure DM', () => dms(a, USERS.alice).length > 0 && dms(a, USERS.alice));
    expect(failedDm).toMatch(
      /^❌ Failed · your withdrawal of 50.00 USDT on BSC to `0x2222…2222`: The wallet service refused the withdrawal: .*balance.* Nothing was sent\.\n/i,
    );
    expect(
      a.app.sandbox!.stats.requests.filter((r) => r.path.startsWith('/api/merchantClientWithdrawal')),
    ).toHaveLength(1);
  });

  it('a dropped connection after the service committed becomes "outcome unknown", is never resent, and reconciliation settles it', async () => {
    const a = await app();
    await requestOneLine(a, `50 USDT BSC ${DEST} ${CLIENT}`);
    a.app.sandbox!.injectFault('/api/merchantClientWithdrawal', { kind: 'drop-after-commit' });
    // Reconciliation must not find it before we look at the card.
    a.app.sandbox!.injectFault('/api/v2/analytics', { kind: 'status', status: 503 }, 50);
    // Nor the status by reference, which the service's own PENDING notification now prompts the app to ask.
    a.app.sandbox!.injectFault('/api/merchantClientWithdrawal/status/', { kind: 'status', status: 503 }, 50);
    await click(a, USERS.carol, 'wd_approve', await card(a));
    await until('unknown', () => only(a).state === 'unknown');
    const unknownCard = await until(
      'the unknown card',
      () =>
        cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*Outcome unknown*') &&
        topLevel(a, CHANNELS.approvals)[0],
    );
    expect(buttonIds(unknownCard)).toEqual(['wd_resolve_sent', 'wd_resolve_not_sent']);
    const refused = await click(a, USERS.carol, 'wd_resolve_sent', unknownCard);
    expect(String((await a.replies(refused))[0]!.text)).toContain('not allowed to use treasury admin commands');

    a.app.sandbox!.clearFaults();
    // The status by reference comes first; with it unavailable, the transaction list settles it.
    a.app.sandbox!.injectFault('/api/merchantClientWithdrawal/status/', { kind: 'status', status: 404 }, 50);
    await a.app.deps.scheduler.runNow('withdrawals.reconcile-unknown');
    expect(only(a)).toMatchObject({ state: 'completed', result: { source: 'reconcile' } });
    expect(a.app.sandbox!.stats.withdrawals).toBe(1);
    await until('the reconciled card', () =>
      cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('confirmed from the transaction list'),
    );
  });

  it('an admin resolves an unknown request from the card, with a note that goes to the audit log', async () => {
    const a = await app();
    await requestOneLine(a, `50 USDT BSC ${DEST} ${CLIENT}`);
    a.app.sandbox!.injectFault('/api/merchantClientWithdrawal', { kind: 'drop-before-commit' });
    await click(a, USERS.carol, 'wd_approve', await card(a));
    const c = await until(
      'the unknown card',
      () =>
        cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*Outcome unknown*') &&
        topLevel(a, CHANNELS.approvals)[0],
    );
    await click(a, USERS.erin, 'wd_resolve_not_sent', c);
    const view = await until('the resolve modal', () =>
      a.fake.views().find((v) => v.callback_id === 'wd_resolve_modal'),
    );
    const res = await a.submitView(USERS.erin, {
      callbackId: 'wd_resolve_modal',
      privateMetadata: view.private_metadata!,
      values: { reason: { value: { type: 'plain_text_input', value: 'Checked the dashboard: not there' } } },
    });
    expect(res.status).toBe(200);
    expect(only(a)).toMatchObject({ state: 'failed', resolution: { by: USERS.erin, outcome: 'not_sent' } });
    const { responseUrl } = await a.command('/treasury', 'audit', USERS.erin);
    const audit = visibleText((await a.replies(responseUrl))[0]!);
    expect(audit).toMatch(/Hash chain verified: all \d+ entries/);
    expect(audit).toContain(`<@${USERS.erin}> · ❌ resolved as not sent · 50.00 USDT on BSC to \`0x2222…2222\``);
    expect(audit).toContain('“Checked the dashboard: not there”');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);
  });

  it('expires with the card saying so, reminds approvers first, and exports the audit log', async () => {
    // Time moves on by itself (the outbox paces by it) and jumps when the test says so.
    let offset = 0;
    const a = await app({ now: () => Date.now() + offset });
    await requestOneLine(a, `5000 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    offset += 100 * 60_000; // 20 minutes before expiry
    await a.app.deps.scheduler.runNow('withdrawals.expire-and-remind');
    const reminder = await until('the reminder', () =>
      a.fake.thread(CHANNELS.approvals, c.ts).find((m) => (m.text ?? '').includes('Reminder')),
    );
    expect(reminder.text).toContain(`<@${USERS.carol}>`);
    expect(reminder.text).not.toContain(`<@${USERS.alice}>`);
    await a.app.deps.scheduler.runNow('withdrawals.expire-and-remind');
    expect(a.fake.thread(CHANNELS.approvals, c.ts).filter((m) => (m.text ?? '').includes('Reminder'))).toHaveLength(1);

    offset += 30 * 60_000;
    await a.app.deps.scheduler.runNow('withdrawals.expire-and-remind');
    expect(only(a).state).toBe('expired');
    const final = await until(
      'the expired card',
      () => cardText(topLevel(a, CHANNELS.approvals)[0]!).includes('*Expired*') && topLevel(a, CHANNELS.approvals)[0],
    );
    expect(buttonIds(final)).toEqual([]);
    await until('the expiry DM', () => dms(a, USERS.alice).some((m) => m.includes('expired')));

    await a.command('/treasury', 'audit export', USERS.erin);
    const file = await until('the audit CSV', () => a.fake.files().find((f) => f.name.startsWith('audit-')));
    expect(file.text.split(/\r?\n/)[0]).toBe('seq,at,actor,action,subject,details,prevHash,hash');
    expect(file.text).toContain(',request,');
    expect(file.text).toContain(',expire');
  });
});

describe('/withdraw: user groups in the policy', () => {
  it('a member of an approver group can approve, and a tier that must include the group completes with them', async () => {
    const policy = parsePolicy(
      TEST_POLICY_YAML.replace(
        `approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]`,
        `approvers: [${USERS.carol}, ${USERS.erin}, S0APPROVE]`,
      ).replace(
        '      - { max: 1000, approvals: 1 }',
        '      - { max: 1000, approvals: 2, must_include: [S0APPROVE] }',
      ),
    );
    const a = await app({ policy, fakeOptions: { usergroups: { S0APPROVE: [USERS.dave] } } });
    await requestOneLine(a, `50 USDT BSC ${DEST} ${CLIENT}`);
    const c = await card(a);
    expect(cardText(c)).toContain('including <!subteam^S0APPROVE>');
    const outsider = await click(a, USERS.viewer, 'wd_approve', c);
    expect(String((await a.replies(outsider))[0]!.text)).toMatch(/not an approver/);
    await click(a, USERS.carol, 'wd_approve', c);
    await until('the first approval', () => only(a).approvals.length === 1);
    // The last slot is the group's: another approver outside it cannot take it.
    const notGroup = await click(a, USERS.erin, 'wd_approve', c);
    expect(String((await a.replies(notGroup))[0]!.text)).toContain('still needs the approval of S0APPROVE');
    await click(a, USERS.dave, 'wd_approve', c);
    const done = await until('completion', () => only(a).state === 'completed' && only(a));
    expect(done.approvals.find((x) => x.user === USERS.dave)?.satisfies).toEqual(['S0APPROVE']);
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);
  });
});
