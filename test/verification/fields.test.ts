/**
 * The verification callback compares every field the call carries with the approved request:
 * the documented call names only the reference, a deployment may add the amount, currency and
 * network (in any of their documented spellings). Over HTTP: the app's verify route, the sandbox
 * asking it through a gate that holds our own send as `executing`, the fake Slack and the audit log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { NOT_VERIFIED } from '../../src/sandbox/verification.js';
import { CHANNELS, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { refreshAt, setPrices } from '../helpers/price-control.js';
import { parsePolicy } from '../../src/policy/load.js';
import { startGate, type Gate, type HeldCall } from './gate.js';
import {
  alertsPosted,
  approve,
  CLIENT,
  DEST,
  expectedChecksum,
  postStraightToSandbox,
  request,
  SECRET,
  startVerifyApp,
  state,
  verificationAudit,
  verify,
} from './world.js';

let t: TestApp | undefined;
let gate: Gate | undefined;
afterEach(async () => {
  await gate?.close();
  await t?.stop();
  t = undefined;
  gate = undefined;
});

/** A 500 USDT request on BSC, approved, whose send the sandbox holds at the gate: the app has it `executing`. */
async function beingSent(
  o: Partial<SandboxOptions> = {},
  app: Parameters<typeof startVerifyApp>[0] = {},
): Promise<{ a: TestApp; r: Sent; held: HeldCall }> {
  gate = await startGate();
  const g = gate;
  t = await startVerifyApp({
    ...app,
    sandbox: { ...app.sandbox, verificationUrl: () => g.url, verificationTimeoutMs: 60_000, ...o },
  });
  const a = t;
  g.target = `${a.app.url}/webhooks/wallet/${SECRET}/verify`;
  const r = await request(a, '500');
  await approve(a, r);
  const held = await until('the sandbox asking', () => g.held[0]);
  expect(state(a, r.id)).toBe('executing');
  return { a, r, held };
}
type Sent = Awaited<ReturnType<typeof request>>;

const REFUSED = { status: 200, body: { isVerified: false, checksum: '' } };
const verified = (r: Sent) => ({
  status: 200,
  body: { isVerified: true, checksum: expectedChecksum(r.merchantReference) },
});
const lastAudit = (a: TestApp) => verificationAudit(a).at(-1);
const alarmText = (a: TestApp) =>
  until('the admins alarmed', () => alertsPosted(a)[0]).then((m) => visibleText(m as { text?: unknown }));

describe('the verification callback compares the fields the call carries', () => {
  it.each([
    { field: 'amount', extra: '&amount=5000', asked: '5000' },
    { field: 'currency', extra: '&currency=USDC', asked: 'USDC' },
    { field: 'network', extra: '&networkChain=ETH', asked: 'ETH' },
  ])('a changed $field for a request being sent is refused, audited, and the admins are told', async (c) => {
    const { a, r, held } = await beingSent();
    expect(await verify(a, r.merchantReference, c.extra)).toEqual(REFUSED);
    expect(lastAudit(a)).toMatchObject({
      actor: 'system',
      subject: r.id,
      details: {
        merchantReference: r.merchantReference,
        verdict: 'refused',
        reason: `${c.field}_mismatch`,
        state: 'executing',
        mismatches: [c.field],
        asked: { [c.field]: [c.asked] },
      },
    });
    const said = await alarmText(a);
    expect(said).toContain(`<@${USERS.erin}>`);
    expect(said).toContain(`the ${c.field} is not the approved one`);
    expect(said).toContain(`${c.field} ${c.asked}`);
    // Our own send is untouched: the documented call is verified and it goes through, once.
    expect(await verify(a, r.merchantReference)).toEqual(verified(r));
    held.release();
    await until('sent', () => state(a, r.id) === 'completed');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);
  });

  it('the approved values in any documented spelling are verified, as is the documented call alone', async () => {
    const { a, r, held } = await beingSent();
    const same = [
      '',
      '&amount=500',
      '&amount=500.00',
      '&Amount=0500.000000',
      '&withdrawnAmountRequested=500.0',
      '&currency=USDT',
      '&currency=4',
      '&Currency=usdt',
      '&paymentCurrency=4',
      '&networkChain=BSC',
      '&networkChain=1',
      '&NetworkChain=bsc',
      '&network=BSC',
      `&amount=500.00&currency=4&networkChain=1&destinationAddress=${DEST.toUpperCase().replace('0X', '0x')}`,
    ];
    for (const extra of same) expect(await verify(a, r.merchantReference, extra), extra).toEqual(verified(r));
    const audit = verificationAudit(a);
    expect(audit.map((e) => e.details.reason)).toEqual(same.map(() => 'verified'));
    expect(audit.at(-1)!.details.asked).toEqual({
      destination: [DEST.toUpperCase().replace('0X', '0x')],
      amount: ['500.00'],
      currency: ['4'],
      network: ['1'],
    });
    expect(audit[0]!.details).not.toHaveProperty('asked');
    held.release();
    await until('sent', () => state(a, r.id) === 'completed');
    await a.app.deps.outbox.drain(5000);
    expect(alertsPosted(a)).toEqual([]);
  });

  it('a value that does not parse, or a second value that differs, is refused: never verified, never a crash', async () => {
    const { a, r, held } = await beingSent();
    const cases: Array<[string, string]> = [
      ['&amount=abc', 'amount_mismatch'],
      ['&amount=', 'amount_mismatch'],
      ['&amount=5e2', 'amount_mismatch'],
      ['&amount=0x1f4', 'amount_mismatch'],
      ['&amount=-500', 'amount_mismatch'],
      ['&amount=500,00', 'amount_mismatch'],
      [`&amount=${'9'.repeat(3000)}`, 'amount_mismatch'],
      ['&amount=500&amount=5000', 'amount_mismatch'],
      ['&amount=500&Amount=5000', 'amount_mismatch'],
      ['&currency=DOGE', 'currency_mismatch'],
      ['&networkChain=99', 'network_mismatch'],
      ['&network=BSC&networkChain=TRON', 'network_mismatch'],
    ];
    for (const [extra] of cases) expect(await verify(a, r.merchantReference, extra), extra).toEqual(REFUSED);
    expect(verificationAudit(a).map((e) => e.details.reason)).toEqual(cases.map(([, reason]) => reason));
    // A parameter repeated many times: refused, and the audit entry keeps ten of its values.
    expect(await verify(a, r.merchantReference, '&amount=5000'.repeat(50))).toEqual(REFUSED);
    expect(lastAudit(a)?.details.asked).toEqual({ amount: Array(10).fill('5000') });
    // Still up, still sending ours.
    expect(await verify(a, r.merchantReference)).toEqual(verified(r));
    held.release();
    await until('sent', () => state(a, r.id) === 'completed');
  });

  it('a service that sends the fields: our send is verified, a reuse of its reference for more is not executed', async () => {
    // Reads the sandbox's refusal body as sent (its canonical v1 form): variety off.
    const { a, r, held } = await beingSent({ verificationFields: true, variety: 'off' });
    // The service's call for our send carries the withdrawal as the app posted it (enum codes).
    expect(Object.fromEntries(held.query)).toEqual({
      reference: r.merchantReference,
      amount: '500',
      currency: '4',
      networkChain: '1',
      destinationAddress: DEST,
    });
    const sb = a.app.sandbox!;
    const balance = sb.balance(CLIENT, 'USDT', 'BSC');
    // Someone holding the API key reuses the reference being sent, with more, to the same payee.
    const reuse = postStraightToSandbox(a, r.merchantReference, 5000);
    const asked = await until('the service asking about the reuse', () => gate!.held[1]);
    expect(asked.query.get('amount')).toBe('5000');
    asked.release();
    const refused = await reuse;
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 0, message: NOT_VERIFIED });
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe(balance);
    expect(lastAudit(a)?.details).toMatchObject({ verdict: 'refused', reason: 'amount_mismatch' });
    const said = await alarmText(a);
    expect(said).toContain('amount 5000');
    expect(alertsPosted(a)[0]!.channel ?? CHANNELS.approvals).toBe(CHANNELS.approvals);

    held.release();
    await until('sent', () => state(a, r.id) === 'completed');
    expect(sb.stats.verifications).toEqual([
      { reference: r.merchantReference, verified: false, why: 'the merchant answered isVerified false' },
      { reference: r.merchantReference, verified: true },
    ]);
    expect(sb.stats.withdrawalsCommitted).toBe(1);
    expect(verificationAudit(a).map((e) => e.details.reason)).toEqual(['amount_mismatch', 'verified']);
  });

  it('the rule table is judged again at the callback: a value that cannot be known since the claim is refused', async () => {
    let clock = Date.now();
    const policy = parsePolicy(`
channels: { approvals: ${CHANNELS.approvals}, alerts: ${CHANNELS.alerts} }
people: { requesters: [${USERS.alice}], approvers: [${USERS.carol}, ${USERS.dave}], admins: [${USERS.erin}, ${USERS.dave}] }
withdrawals:
  tiers: { value: [{ approvals: 1 }] }
  daily_limit: { value: 600 }
`);
    const { a, r, held } = await beingSent({ now: () => clock }, { policy, now: () => clock });
    // Between our claim and the service's call, the feed says USDT doubled: held back, so its value is unknown.
    await setPrices(a, { prices: { USDT: 2 }, drift: false });
    await refreshAt(
      a,
      (ms) => {
        clock = ms;
      },
      clock + 61_000,
    );
    expect(a.app.deps.prices.snapshot().held?.USDT).toBeDefined();
    expect(await verify(a, r.merchantReference)).toEqual(REFUSED);
    expect(lastAudit(a)).toMatchObject({
      subject: r.id,
      details: { verdict: 'refused', reason: 'policy', policy: expect.stringContaining('daily limit of $600.00') },
    });
    held.release();
    await until('settled', () => state(a, r.id) !== 'executing');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);
  });
});
