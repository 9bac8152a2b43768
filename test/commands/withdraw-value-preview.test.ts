/**
 * The withdrawal form's value line (issue 24, point 5), end to end: the form opened by a signed
 * /withdraw, the amount and currency changed as Slack sends it (a signed block action with the
 * view and its state), prices from the embedded sandbox's /simple/price over HTTP, and the
 * update read back from the recording fake Web API (views.update with the view's hash).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import type { FakeView } from '../helpers/fake-slack.js';
import { blockAction, sendToBolt } from '../helpers/slack-requests.js';
import { startTestApp, USERS, CHANNELS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { clockedRefresh, setPrices } from '../helpers/price-control.js';

const POLICY = `
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people:
  requesters: [${USERS.alice}]
  approvers: [${USERS.carol}, ${USERS.dave}, ${USERS.erin}]
  admins: [${USERS.erin}]
withdrawals:
  tiers:
    value:
      - { max: 1000, approvals: 1 }
      - { max: 50000, approvals: 2 }
      - { approvals: 3, must_include: [${USERS.erin}] }
valuation: { max_age: 5m }
`;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const T0 = Date.now();
let clock = T0;

const prices = (a: TestApp, body: Record<string, unknown>) => setPrices(a, body);
const refreshAt = clockedRefresh((t) => {
  clock = t;
});

async function openForm(o: { feedDown?: boolean } = {}): Promise<{ a: TestApp; view: FakeView }> {
  clock = T0;
  const a = await startTestApp({ policy: parsePolicy(POLICY), now: () => clock, sandbox: { now: () => clock } });
  t = a;
  await until('the first price refresh', () => a.app.deps.prices.state().lastOkAt !== undefined);
  await prices(a, { prices: { ETH: 3000 }, drift: false, feed: 'up' });
  await refreshAt(a, T0 + 61_000);
  if (o.feedDown) {
    await prices(a, { feed: 'down' });
    await refreshAt(a, T0 + 7 * 60_000);
  }
  await a.command('/withdraw', '', USERS.alice);
  const view = await until('the form', () => a.fake.views().find((v) => v.callback_id === 'wd_request_modal'));
  return { a, view };
}

/** Slack's block action for a change in the form: the view as it stands, with the state the person typed. */
async function change(a: TestApp, view: FakeView, typed: { amount?: string; currency?: string }, block: string) {
  const state: Record<string, unknown> = {
    wd_amount: { value: { type: 'plain_text_input', value: typed.amount ?? null } },
    wd_currency: {
      value: {
        type: 'static_select',
        selected_option: typed.currency
          ? { value: typed.currency, text: { type: 'plain_text', text: typed.currency } }
          : null,
      },
    },
  };
  const action =
    block === 'wd_amount'
      ? { actionId: 'value', blockId: block, type: 'plain_text_input', value: typed.amount ?? '' }
      : {
          actionId: 'value',
          blockId: block,
          type: 'static_select',
          selectedOption: { text: typed.currency ?? '', value: typed.currency ?? '' },
        };
  const res = await sendToBolt(
    a.app.url,
    a.signingSecret,
    blockAction({ userId: USERS.alice, view: { ...view, state: { values: state } }, stateValues: state, action }),
  );
  expect(res.status).toBe(200);
}

const valueLine = (v: FakeView) =>
  visibleText({ blocks: (v.blocks as Array<{ block_id?: string }>).filter((b) => b.block_id === 'form_value') });

describe('the withdrawal form shows the value while it is filled', () => {
  it('the amount and currency dispatch actions; the form opens with a hint and no value', async () => {
    const { view } = await openForm();
    const blocks = view.blocks as Array<Record<string, any>>;
    const amount = blocks.find((b) => b.block_id === 'wd_amount')!;
    const currency = blocks.find((b) => b.block_id === 'wd_currency')!;
    expect(amount.dispatch_action).toBe(true);
    expect(amount.element.action_id).toBe('value');
    expect(amount.element.dispatch_action_config).toEqual({
      trigger_actions_on: ['on_character_entered', 'on_enter_pressed'],
    });
    expect(currency.dispatch_action).toBe(true);
    expect(valueLine(view)).toBe(
      'Enter the amount and choose the currency to see its value and the approvals it needs.',
    );
  });

  it('updates the form with the value and the tier, carrying the view hash', async () => {
    const { a, view } = await openForm();
    await change(a, view, { amount: '0.3', currency: 'ETH' }, 'wd_currency');
    const call = await a.fake.waitFor('views.update');
    expect(call.args.view_id).toBe(view.id);
    expect(call.args.hash).toBe(view.hash);
    const updated = a.fake.view(view.id)!;
    // The current value first; limits judge at the window's high (the sandbox's start price), said beside it.
    expect(valueLine(updated)).toMatch(
      /^≈ \$900\.00 \(≈ \$9\d\d\.\d\d for limits: judged at \$3,\d{3}\.\d\d, the highest price of the last 7 days\), up to \$1,000\.00: 1 approval$/,
    );
    // The inputs are the same blocks (Slack keeps what was typed), and the form stays the request form.
    expect(updated.callback_id).toBe('wd_request_modal');
    expect((updated.blocks as Array<{ block_id?: string }>).map((b) => b.block_id)).toEqual(
      (view.blocks as Array<{ block_id?: string }>).map((b) => b.block_id),
    );

    // Typed on: 20 ETH is $60,000, the top tier; sent with the new hash.
    await change(a, updated, { amount: '20', currency: 'ETH' }, 'wd_amount');
    await until('the second update', () => a.fake.calls('views.update').length === 2 || undefined);
    expect(a.fake.calls('views.update')[1]!.args.hash).toBe(updated.hash);
    expect(valueLine(a.fake.view(view.id)!)).toMatch(
      /^≈ \$60,000\.00 \(.* for limits: judged at .*\), above \$[\d,]+\.00: 3 approvals$/,
    );
  });

  it('a bad amount shows no value, only what to do', async () => {
    const { a, view } = await openForm();
    await change(a, view, { amount: '12,5', currency: 'ETH' }, 'wd_amount');
    await until('the update', () => a.fake.calls('views.update').length === 1 || undefined);
    const line = valueLine(a.fake.view(view.id)!);
    expect(line).toBe('Enter a number (e.g. 250.50) to see its value and the approvals it needs.');
    expect(line).not.toMatch(/\$|approval:|tier/);
  });

  it('with no currency chosen yet, asks for it', async () => {
    const { a, view } = await openForm();
    await change(a, view, { amount: '5' }, 'wd_amount');
    await until('the update', () => a.fake.calls('views.update').length === 1 || undefined);
    expect(valueLine(a.fake.view(view.id)!)).toBe('Choose the currency to see the value and the approvals it needs.');
  });

  it('with no fresh price the value is unknown and the tier the top one, said so', async () => {
    const { a, view } = await openForm({ feedDown: true });
    await change(a, view, { amount: '0.01', currency: 'ETH' }, 'wd_amount');
    await until('the update', () => a.fake.calls('views.update').length === 1 || undefined);
    expect(valueLine(a.fake.view(view.id)!)).toMatch(
      /^Value unknown \(no price since \d{4}-\d\d-\d\d \d\d:\d\d UTC\), above \$[\d,]+\.00: 3 approvals \(the top tier while the value is unknown\)$/,
    );
  });

  it('a stale update (the form changed meanwhile) writes nothing and logs no problem', async () => {
    const { a, view } = await openForm();
    await change(a, { ...view, hash: '1.stale' }, { amount: '0.3', currency: 'ETH' }, 'wd_amount');
    const call = await a.fake.waitFor('views.update');
    await until('the answer', () => call.response !== undefined || undefined);
    expect(call.response).toMatchObject({ ok: false, error: 'hash_conflict' });
    await new Promise((r) => setTimeout(r, 50));
    expect(valueLine(a.fake.view(view.id)!)).toMatch(/^Enter the amount/);
    expect(a.logs()).not.toContain('value preview: the form could not be updated');
  });

  it('the same words already shown make no call', async () => {
    const { a, view } = await openForm();
    await change(a, view, { amount: '', currency: 'ETH' }, 'wd_currency');
    await new Promise((r) => setTimeout(r, 200));
    expect(a.fake.calls('views.update')).toHaveLength(0);
  });
});
