/**
 * Screening end to end (issue 36): the whole app with signed Slack requests, the sandbox wallet
 * service, and a sanctions list served over loopback HTTP (SANCTIONS_LIST_URL) that the test
 * changes between steps. The app's clock runs ahead when a test says hours pass (the list turns
 * stale without waiting); the `screening.refresh` job is run by hand, as an admin would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recentAudit } from '../../src/audit/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { makeList } from '../../src/screening/list.js';
import { ACTIONS } from '../../src/slack/withdrawal/index.js';
import { toChecksumAddress } from '../../src/wallet/addresses.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import {
  CHANNELS,
  startTestApp,
  TEST_POLICY_YAML,
  USERS,
  visibleText,
  withdrawFormValues,
  type TestApp,
} from '../helpers/treasury-app.js';
import { blockAction, sendToBolt } from '../helpers/slack-requests.js';
import { until, untilAsync } from '../helpers/wait.js';
import { startGate, type Gate } from '../verification/gate.js';
import { filler, startListServer, type ListServer } from './list-server.js';

const CLIENT = 'payouts@client.example';
const SANCTIONED = '0xabcdef0123456789abcdef0123456789abcdef01';
const CLEAN = '0x2222222222222222222222222222222222222222';
const OTHER_LISTED = 'TJCx4A1XzNvy32sqbmi86xcURjRi1Etver';
const SECRET = 'screening-test-secret-0a9b8c7d6e';
const HOUR = 3_600_000;
/** The rest of a realistic list: a delisting is a few addresses of many (a list that shrinks more is refused). */
const BULK = filler(60);

const POLICY = parsePolicy(
  `${TEST_POLICY_YAML.replace('expires_after: 2h', 'expires_after: 3d').replace(
    `admins: [${USERS.erin}]`,
    `admins: [${USERS.erin}, ${USERS.dave}]`,
  )}
screening:
  refresh: 1h
  max_age: 2h
  stale_block_above: 1000
`,
);

let t: TestApp | undefined;
let list: ListServer | undefined;
let gate: Gate | undefined;
afterEach(async () => {
  await t?.stop();
  await list?.close();
  await gate?.close();
  t = list = gate = undefined;
});

/** The app's (and the sandbox's) clock runs with real time, `offset` ahead of it. */
let offset = 0;
const clock = () => Date.now() + offset;

async function app(o: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  offset = 0;
  list = await startListServer(`# OFAC SDN, test copy\n${BULK}${SANCTIONED}\n${OTHER_LISTED}  # a TRON one\n`);
  t = await startTestApp({
    policy: POLICY,
    now: clock,
    ...o,
    sandbox: { now: clock, ...o.sandbox },
    env: { SANCTIONS_LIST_URL: list.url, WEBHOOK_SECRET: SECRET, ...o.env },
  });
  t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  return t;
}

/** The `screening.refresh` job run by hand: the list read now (the start-time run, if still going, joined first). */
async function refresh(a: TestApp): Promise<void> {
  await a.app.deps.scheduler.runNow('screening.refresh');
  await a.app.deps.scheduler.runNow('screening.refresh');
}

/** Hours pass (the sandbox's clock too), and the prices are read at the new time as their job does. */
async function later(a: TestApp, hours: number): Promise<void> {
  await a.app.deps.scheduler.runNow('prices.refresh');
  offset += hours * HOUR;
  await a.app.deps.scheduler.runNow('prices.refresh');
}

async function withdraw(a: TestApp, amount: string, destination: string, user: string = USERS.alice) {
  const { responseUrl } = await a.command('/withdraw', `${amount} USDT BSC ${destination} ${CLIENT} invoice 7`, user);
  const [reply] = await a.replies(responseUrl);
  return visibleText(reply!);
}

const requests = (a: TestApp) => a.app.deps.withdrawals.list();
const only = (a: TestApp): WithdrawalRequest => {
  expect(requests(a)).toHaveLength(1);
  return requests(a)[0]!;
};
const cardOf = (a: TestApp, r: WithdrawalRequest) =>
  until('the card', () =>
    a.fake
      .channel(CHANNELS.approvals)
      .find((m) => !m.thread_ts && (m.text ?? '').includes(r.merchantReference.slice(0, 8))),
  );
const cardText = async (a: TestApp, r: WithdrawalRequest) => visibleText((await cardOf(a, r)) as { text?: unknown });
async function approve(a: TestApp, r: WithdrawalRequest, user: string) {
  const card = await cardOf(a, r);
  const { res } = await a.click(
    user,
    { actionId: ACTIONS.approve, value: r.id },
    { channel: CHANNELS.approvals, message: { ts: card.ts } },
  );
  expect(res.status).toBe(200);
}
const dmsOf = (a: TestApp, user: string) =>
  a.fake.channel(a.fake.dmChannel(user)).map((m) => visibleText(m as { text?: unknown }));
const audit = (a: TestApp, action: string) => recentAudit(a.app.deps.store, 1000).filter((e) => e.action === action);
/** Every message any channel or DM received: none may call the channel. */
const everything = (a: TestApp) =>
  a.fake
    .channels()
    .flatMap((c) => a.fake.channel(c))
    .map((m) => JSON.stringify(m));

describe('screening at the request', () => {
  it('a listed destination is refused in mixed case, nothing is requested, the admins are told, and the audit names the list by its sha256', async () => {
    const a = await app();
    const mixed = toChecksumAddress(SANCTIONED);
    expect(mixed).not.toBe(SANCTIONED);
    const reply = await withdraw(a, '500', mixed);
    expect(reply).toContain('Not requested');
    expect(reply).toContain(`${mixed} is on the OFAC sanctions list of `);
    expect(reply).toContain('paying a sanctioned address is against the law');
    expect(requests(a)).toEqual([]);

    // The admins, in private, at once; nothing for the channel.
    for (const admin of [USERS.erin, USERS.dave]) {
      const dm = await until('the admin told', () =>
        dmsOf(a, admin).find((m) => m.includes('A withdrawal to a sanctioned address was refused')),
      );
      expect(dm).toContain(mixed);
      expect(dm).toContain(`<@${USERS.alice}>`);
    }
    expect(everything(a).join('\n')).not.toMatch(/<!here>|<!channel>/);

    // Audited with the list it was judged with: its sha256, computed here from what was served.
    const served = makeList([...BULK.trim().split('\n'), SANCTIONED, OTHER_LISTED], {
      source: '',
      date: '',
      fetchedAt: '',
    });
    const [entry] = audit(a, 'refuse');
    expect(entry?.details).toMatchObject({
      rule: 'sanctions',
      destination: mixed,
      list: { sha256: served.sha256, count: 62 },
    });

    // A clean destination is requested, and its request's audit entry names the same list.
    expect(await withdraw(a, '500', CLEAN)).toContain('Requested');
    expect(audit(a, 'request')[0]?.details).toMatchObject({ screening: { list: { sha256: served.sha256 } } });
  });

  it('a form submitted twice with a listed destination is refused next to the field, and the admins are told once', async () => {
    const a = await app();
    const form = {
      callbackId: 'wd_request_modal',
      viewId: 'V0SAMEFORM',
      values: withdrawFormValues({ amount: '75', destination: SANCTIONED, client: CLIENT, note: null }),
    };
    const answers = [await a.submitView(USERS.alice, form), await a.submitView(USERS.alice, form)];
    for (const res of answers) {
      const body = res.json as { response_action: string; errors: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(body.errors.wd_destination).toContain('is on the OFAC sanctions list');
    }
    await a.app.deps.outbox.drain(5000);
    const told = dmsOf(a, USERS.erin).filter((m) => m.includes('A withdrawal to a sanctioned address was refused'));
    expect(told).toHaveLength(1);
    expect(requests(a)).toEqual([]);
  });

  it('a list read again counts removals as well as additions; /treasury status shows its source, date, count and age', async () => {
    const a = await app();
    list!.text = `${BULK}${CLEAN}\n`;
    await refresh(a);
    // Delisted: requested now. Newly listed: refused.
    expect(await withdraw(a, '500', SANCTIONED)).toContain('Requested');
    expect(await withdraw(a, '500', CLEAN)).toContain('is on the OFAC sanctions list');
    const [refreshed] = audit(a, 'screening_list_refreshed').slice(-1);
    expect(refreshed?.details).toMatchObject({ added: 1, removed: 2, count: 61 });

    const { responseUrl } = await a.command('/treasury', 'status', USERS.erin);
    const status = visibleText((await a.replies(responseUrl))[0]!);
    expect(status).toContain('Sanctions screening');
    expect(status).toContain(':large_green_circle: the list was read 0 minutes ago');
    expect(status).toContain(`· 61 addresses · from ${list!.url}`);
    expect(status).toMatch(/OFAC sanctions list of \d{4}-\d{2}-\d{2}/);
  });
});

describe('screening after the request', () => {
  it('a destination listed after the first approval is stopped at the next one', async () => {
    const a = await app();
    await withdraw(a, '5000', CLEAN);
    const r = only(a);
    await approve(a, r, USERS.carol);
    list!.text = `${BULK}${CLEAN}\n`;
    await refresh(a);
    await approve(a, r, USERS.dave);
    await until('rejected', () => a.app.deps.withdrawals.get(r.id)?.state === 'rejected');
    expect(a.app.deps.withdrawals.get(r.id)?.sanctioned).toMatchObject({ step: 'approve' });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    expect(await untilAsync('the card says so', async () => (await cardText(a, r)).includes('Stopped'))).toBe(true);
  });

  it('a destination listed after its approvals is stopped at the send (held by a freeze until then): nothing is sent, the admins are told', async () => {
    const a = await app();
    expect((await a.app.deps.freeze.freeze(USERS.erin, 'quarterly review')).ok).toBe(true);
    await withdraw(a, '5000', CLEAN);
    const r = only(a);
    // Approved through the service (the card of a request made while frozen is not the point here).
    expect((await a.app.deps.withdrawals.approve(r.id, USERS.carol)).ok).toBe(true);
    expect((await a.app.deps.withdrawals.approve(r.id, USERS.dave)).ok).toBe(true);
    await until('approved, held by the freeze', () => a.app.deps.withdrawals.get(r.id)?.state === 'approved');
    list!.text = `${BULK}${SANCTIONED}\n${CLEAN}\n`;
    await refresh(a);
    const asked = await a.app.deps.freeze.unfreeze(USERS.erin, { confirm: false });
    expect(asked.ok).toBe(true);
    expect((await a.app.deps.freeze.unfreeze(USERS.dave, { confirm: true })).ok).toBe(true);
    const stopped = await until('stopped at the send', () => {
      const cur = a.app.deps.withdrawals.get(r.id);
      return cur?.state === 'rejected' ? cur : undefined;
    });
    expect(stopped.sanctioned).toMatchObject({ step: 'send' });
    expect(stopped.rejection?.reason).toContain(`Stopped: the destination ${CLEAN} is now on the OFAC sanctions list`);
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    const [stop] = audit(a, 'sanctions_stop');
    const served = makeList([...BULK.trim().split('\n'), SANCTIONED, CLEAN], { source: '', date: '', fetchedAt: '' });
    expect(stop?.details).toMatchObject({ step: 'send', list: { sha256: served.sha256 } });
    await until('the admins told', () =>
      dmsOf(a, USERS.erin).find((m) => m.includes('A withdrawal was stopped: its destination is now sanctioned')),
    );
  });

  it('a destination listed while the wallet service asks is refused by the verification callback: the service sends nothing', async () => {
    gate = await startGate();
    const g = gate;
    const a = await app({ sandbox: { verificationUrl: () => g.url, verificationTimeoutMs: 60_000 } });
    g.target = `${a.app.url}/webhooks/wallet/${SECRET}/verify`;
    await withdraw(a, '500', CLEAN);
    const r = only(a);
    await approve(a, r, USERS.carol);
    const held = await until('the service asking', () => g.held[0]);
    expect(a.app.deps.withdrawals.get(r.id)?.state).toBe('executing');
    list!.text = `${BULK}${CLEAN}\n`;
    await refresh(a);
    held.release();
    await until('refused by the service', () => a.app.deps.withdrawals.get(r.id)?.state === 'failed');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);
    const verdicts = recentAudit(a.app.deps.store, 1000).filter((e) => e.action === 'verification');
    expect(JSON.stringify(verdicts.at(-1)?.details)).toContain('is now on the OFAC sanctions list');
    const dm = await until('the admins told', () =>
      dmsOf(a, USERS.erin).find((m) => m.includes('A withdrawal was stopped: its destination is now sanctioned')),
    );
    expect(dm).toContain('the wallet service asked to confirm it, and it was refused');
  });
});

describe('a stale list', () => {
  it('fails closed above screening.stale_block_above, flags the card below it, and says so in /treasury status', async () => {
    const a = await app();
    list!.down = true;
    // Three hours on, every read failing: older than max_age (2h). The job fails (its admins' warning is the scheduler's).
    await later(a, 3);
    await expect(a.app.deps.scheduler.runNow('screening.refresh')).resolves.toBeUndefined();
    const above = await withdraw(a, '5000', CLEAN);
    expect(above).toContain('Not requested');
    expect(above).toMatch(
      /The sanctions list is 3 hours old \(it could not be refreshed since .*\), and this request is ≈ \$5,0\d\d\.\d\d: above \$1,000\.00 nothing can be requested/,
    );
    expect(requests(a)).toEqual([]);

    expect(await withdraw(a, '500', CLEAN)).toContain('the sanctions list is 3 hours old');
    const r = only(a);
    expect(await cardText(a, r)).toContain('the sanctions list is 3 hours old');

    const { responseUrl } = await a.command('/treasury', 'status', USERS.erin);
    const status = visibleText((await a.replies(responseUrl))[0]!);
    expect(status).toContain(
      ':red_circle: the list is 3 hours old: requests above $1,000.00 are refused until it is refreshed',
    );
    expect(status).toContain('Last refresh failed');

    // Readable again: fresh, and the same request goes through.
    list!.down = false;
    await refresh(a);
    expect(await withdraw(a, '5000', CLEAN)).toContain('Requested');
  });
  it('turned stale between the approvals: the send is held until the list is read again, then sent', async () => {
    const a = await app();
    await withdraw(a, '5000', CLEAN);
    const r = only(a);
    await approve(a, r, USERS.carol);
    list!.down = true;
    await later(a, 3);
    await a.app.deps.scheduler.runNow('screening.refresh');
    await approve(a, r, USERS.dave);
    const held = await until('held at the send', () => a.app.deps.withdrawals.get(r.id)?.hold);
    expect(held).toMatchObject({ kind: 'limit', rules: ['stale_list'] });
    expect(a.app.sandbox!.stats.withdrawals).toBe(0);
    expect(
      await untilAsync('the card says why', async () =>
        (await cardText(a, r)).includes('Nothing is sent until the sanctions list is read again'),
      ),
    ).toBe(true);
    list!.down = false;
    await refresh(a);
    await a.app.deps.withdrawals.retryHeld();
    await until('sent', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
  });
});

describe('look-alike destinations', () => {
  it('a destination with the first and last four characters of an allowlisted one warns on the card and in the answer, and needs one more approval', async () => {
    const a = await app();
    // The allowlist's "Exchange hot wallet" is 0x1111…1111 on BSC.
    const poisoned = `0x1111${'5'.repeat(32)}1111`;
    const reply = await withdraw(a, '500', poisoned);
    const warning = 'looks like *Exchange hot wallet* (0x1111…1111), but is a different address';
    expect(reply).toContain(warning);
    const r = only(a);
    expect(r.tier.approvals).toBe(2); // the tier asks for 1 at 500 USDT
    expect(r.screening?.lookalike).toMatchObject({ label: 'Exchange hot wallet', extraApprovals: 1 });
    expect(await cardText(a, r)).toContain(warning);
    await approve(a, r, USERS.carol);
    await until('approval recorded', () => a.app.deps.withdrawals.get(r.id)?.approvals.length === 1);
    expect(a.app.deps.withdrawals.get(r.id)?.state).toBe('pending');
    await approve(a, r, USERS.dave);
    await until('sent', () => a.app.deps.withdrawals.get(r.id)?.state === 'completed');
  });
});

describe('deposits', () => {
  it('a deposit from a listed sender is flagged on its alert, never with @here (even when large), audited, and the admins told in private', async () => {
    const a = await app();
    await a.app.sandbox!.deposit({
      to: CLIENT,
      amount: '25000',
      currency: 'USDT',
      network: 'BSC',
      from: toChecksumAddress(SANCTIONED),
    });
    const alert = await until('the alert', () =>
      a.fake.channel(CHANNELS.usdt).find((m) => (m.text ?? '').includes('from an address on the OFAC sanctions list')),
    );
    expect(visibleText(alert as { text?: unknown })).toContain('From an address on the OFAC sanctions list');
    const dm = await until('the admins told', () =>
      dmsOf(a, USERS.erin).find((m) => m.includes('A deposit came from an address on the OFAC sanctions list')),
    );
    expect(dm).toContain('nothing was posted to the channel with @here');
    expect(audit(a, 'sanctions_deposit')).toHaveLength(1);
    // Confirmed against the wallet's history since, and still no @here (mention_above is 10,000 USDT).
    await a.app.deps.alerts.verifyPending();
    await a.app.deps.outbox.drain(5000);
    expect(everything(a).join('\n')).not.toMatch(/<!here>|<!channel>/);
    expect(audit(a, 'sanctions_deposit')).toHaveLength(1);
  });
});

describe('the provider, with the embedded sandbox (no SANCTIONS_LIST_URL)', () => {
  it('a destination the provider identifies is refused; while it is down the list alone decides and the card says so', async () => {
    offset = 0;
    t = await startTestApp({ policy: POLICY, env: { WEBHOOK_SECRET: SECRET } });
    const a = t;
    a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    const flagged = '0x4444444444444444444444444444444444444444';
    a.app.sandbox!.screening.providerAdd(flagged);
    const refused = await withdraw(a, '500', flagged);
    expect(refused).toContain('identified as sanctioned by the sanctions screening service');
    expect(requests(a)).toEqual([]);
    // The sandbox's list (the bundled snapshot) still decides when the provider is down: a listed address is refused.
    a.app.sandbox!.screening.providerDown(true);
    expect(await withdraw(a, '500', '0x8589427373D6D84E98730D7795D8f6f8731FDA16')).toContain(
      'is on the OFAC sanctions list',
    );
    expect(await withdraw(a, '500', CLEAN)).toContain('Requested');
    const r = only(a);
    expect(r.screening?.provider).toBe('down');
    expect(await cardText(a, r)).toContain(
      'the sanctions screening service could not be reached: the list alone decided',
    );
  });
});

describe('the request form checks the destination as it is typed', () => {
  it('a look-alike of an allowlisted address is warned of, and a listed one said to be refused, in the form itself', async () => {
    const a = await app();
    await a.command('/withdraw', '', USERS.alice);
    const view = await until('the form', () => a.fake.views().find((v) => v.callback_id === 'wd_request_modal'));
    const checkLine = () =>
      visibleText({
        blocks: (a.fake.view(view.id)!.blocks as Array<{ block_id?: string }>).filter(
          (b) => b.block_id === 'form_destination_check',
        ),
      });
    expect(checkLine()).toContain('checked against the OFAC sanctions list');
    const type = async (destination: string, n: number) => {
      const current = a.fake.view(view.id)!;
      const state = {
        wd_network: {
          value: {
            type: 'static_select',
            selected_option: { value: 'BSC', text: { type: 'plain_text', text: 'BSC' } },
          },
        },
        wd_destination: { value: { type: 'plain_text_input', value: destination } },
      };
      const res = await sendToBolt(
        a.app.url,
        a.signingSecret,
        blockAction({
          userId: USERS.alice,
          view: { ...current, state: { values: state } },
          stateValues: state,
          action: { actionId: 'value', blockId: 'wd_destination', type: 'plain_text_input', value: destination },
        }),
      );
      expect(res.status).toBe(200);
      await until('the form updated', () => a.fake.calls('views.update').length >= n || undefined);
    };
    await type(`0x1111${'5'.repeat(32)}1111`, 1);
    expect(checkLine()).toBe(
      '⚠️ This looks like Exchange hot wallet (0x1111…1111), but is a different address: check it against its source. It will need 1 more approval.',
    );
    await type(toChecksumAddress(SANCTIONED), 2);
    expect(checkLine()).toMatch(
      /^⛔ This address is on the OFAC sanctions list of \d{4}-\d{2}-\d{2}: it cannot be requested\.$/,
    );
  });
});
