/**
 * The withdrawal verification callback end to end: signed Slack requests in, the sandbox
 * playing the wallet service over HTTP (it calls the app's verify route before executing),
 * the fake Slack out, and the audit log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FREEZES } from '../../src/freeze/state.js';
import { openStore } from '../../src/store/index.js';
import { CHANNELS, freePort, type startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';
import { startGate, type Gate } from './gate.js';
import {
  alertsPosted,
  approve,
  CLIENT,
  DEST,
  expectedChecksum,
  noticesPosted,
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
const dirs: string[] = [];
afterEach(async () => {
  await gate?.close();
  await t?.stop();
  t = undefined;
  gate = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function app(o: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  t = await startVerifyApp(o);
  return t;
}

/** Whether something accepts TCP connections on the port now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the verification callback', () => {
  it('an approved withdrawal passes through it: the sandbox asked, the app answered verified, the audit shows it', async () => {
    const a = await app();
    const r = await request(a);
    await approve(a, r);
    await until('sent', () => state(a, r.id) === 'completed');
    expect(a.app.sandbox!.stats.verifications).toEqual([{ reference: r.merchantReference, verified: true }]);
    const audit = verificationAudit(a);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'system',
      subject: r.id,
      details: { merchantReference: r.merchantReference, verdict: 'verified', reason: 'verified', state: 'executing' },
    });
    expect(alertsPosted(a)).toEqual([]);
    // Completed now: a late or replayed call is refused, and told plainly (the quorum approved it): no alarm.
    expect((await verify(a, r.merchantReference)).body).toEqual({ isVerified: false, checksum: '' });
    expect((await verify(a, r.merchantReference)).body).toEqual({ isVerified: false, checksum: '' });
    const notice = await until('the notice', () => noticesPosted(a)[0]);
    const said = visibleText(notice as { text?: unknown; blocks?: unknown });
    expect(said).toContain(
      `The wallet service asked to confirm withdrawal \`${r.merchantReference.slice(0, 8)}\` (500.00 USDT to`,
    );
    expect(said).toContain('refused because it is no longer being sent (already sent)');
    expect(said).toContain('Destination of our request');
    expect(said).not.toContain(`<@${USERS.erin}>`);
    await a.app.deps.outbox.drain(5000);
    expect(noticesPosted(a)).toHaveLength(1);
    expect(alertsPosted(a)).toEqual([]);
  });

  it('a withdrawal posted straight to the sandbox with the API key is refused, moves nothing, and alerts the admins once', async () => {
    // Posts straight to the sandbox and reads its refusal body as sent (the canonical v1 form): variety off.
    const a = await app({ sandbox: { variety: 'off' } });
    const sb = a.app.sandbox!;
    const balance = sb.balance(CLIENT, 'USDT', 'BSC');
    const txs = sb.transactions().length;
    const first = await postStraightToSandbox(a, 'stolen-key-0001');
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ status: 0, message: 'Withdrawal not verified by merchant' });
    expect(sb.balance(CLIENT, 'USDT', 'BSC')).toBe(balance);
    expect(sb.transactions()).toHaveLength(txs);
    expect(sb.stats.withdrawalsCommitted).toBe(0);

    const alert = await until('the admins alerted', () => alertsPosted(a)[0]);
    const text = visibleText(alert as { text?: unknown; blocks?: unknown });
    expect(text).toContain(`<@${USERS.erin}>`);
    expect(text).toContain('The wallet service asked us to verify a withdrawal we did not approve');
    expect(text).toContain('stolen-key-0001');
    expect(alert.channel ?? CHANNELS.approvals).toBe(CHANNELS.approvals);

    // The attacker (or the service) tries again: refused again, no second alert.
    expect((await postStraightToSandbox(a, 'stolen-key-0001')).status).toBe(400);
    await a.app.deps.outbox.drain(5000);
    expect(alertsPosted(a)).toHaveLength(1);
    // The admins' audit view reads it in words.
    const { responseUrl } = await a.command('/treasury', 'audit', USERS.erin);
    const audit = visibleText((await a.replies(responseUrl))[0]!);
    expect(audit).toContain('the wallet service asked to verify it: refused');
    expect(audit).toContain('this app has no withdrawal with that reference');
    expect(verificationAudit(a).map((e) => e.details)).toEqual([
      expect.objectContaining({
        merchantReference: 'stolen-key-0001',
        verdict: 'refused',
        reason: 'unknown_reference',
      }),
      expect.objectContaining({
        merchantReference: 'stolen-key-0001',
        verdict: 'refused',
        reason: 'unknown_reference',
      }),
    ]);
  });

  it('a reference of any shape still alarms the admins once, shown short and escaped, and is audited shortened', async () => {
    // Posts straight to the sandbox and reads its refusal body as sent (the canonical v1 form): variety off.
    const a = await app({ sandbox: { variety: 'off' } });
    const long = `L${'x'.repeat(248)}Z`;
    const sneaky = '<!channel> `pay` *now*';
    const references = ['pay out 42', 'réf-42', long, sneaky];
    for (const ref of references) {
      const r = await postStraightToSandbox(a, ref);
      expect(r.status, ref).toBe(400);
      expect(r.body).toMatchObject({ status: 0, message: 'Withdrawal not verified by merchant' });
    }
    // Straight to our verify route too (as the service would): the same answer.
    expect(await verify(a, sneaky)).toEqual({ status: 200, body: { isVerified: false, checksum: '' } });
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);

    await until('four alarms', () => (alertsPosted(a).length >= references.length ? true : undefined));
    await a.app.deps.outbox.drain(5000);
    const alarms = alertsPosted(a);
    expect(alarms).toHaveLength(references.length);
    const shown = alarms.map((m) => visibleText(m as { text?: unknown; blocks?: unknown }));
    expect(shown.find((t) => t.includes('`pay out 42`'))).toBeTruthy();
    expect(shown.find((t) => t.includes('`réf-42`'))).toBeTruthy();
    // 250 characters: shown cut, never whole.
    const longShown = shown.find((t) => t.includes('`Lxxx'))!;
    expect(longShown).toContain(`\`L${'x'.repeat(62)}…\``);
    expect(longShown).not.toContain(long);
    // Nobody is mentioned by the caller's text, and its backticks cannot end the code span.
    const sneakyShown = shown.find((t) => t.includes('channel&gt;'))!;
    expect(sneakyShown).toContain('`&lt;!channel&gt; ˋpayˋ *now*`');
    for (const m of alarms) {
      expect(visibleText(m as { text?: unknown; blocks?: unknown })).not.toContain('<!channel>');
      for (const b of (m.blocks ?? []) as Array<{ text?: { text: string }; fields?: Array<{ text: string }> }>) {
        if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(3000);
        for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
      }
    }
    // Audited with the reference as asked, shortened.
    const audited = verificationAudit(a).map((e) => e.details);
    expect(audited).toHaveLength(references.length + 1);
    for (const d of audited) expect(d).toMatchObject({ verdict: 'refused', reason: 'invalid_reference' });
    expect(audited.map((d) => d.askedReference)).toEqual([
      'pay out 42',
      'réf-42',
      `L${'x'.repeat(118)}…`,
      sneaky,
      sneaky,
    ]);
  });

  it('answers true with the checksum only while executing; a wrong destination, a freeze, a wrong secret say no', async () => {
    gate = await startGate();
    const g = gate;
    const a = await app({ sandbox: { verificationUrl: () => g.url, verificationTimeoutMs: 60_000 } });
    g.target = `${a.app.url}/webhooks/wallet/${SECRET}/verify`;
    const r = await request(a);
    // Pending: not ours to send yet.
    expect(await verify(a, r.merchantReference)).toEqual({ status: 200, body: { isVerified: false, checksum: '' } });
    await approve(a, r);
    // The sandbox is asking (held at the gate): the app holds it as executing.
    const held = await until('the sandbox asking', () => g.held[0]);
    expect(held.reference).toBe(r.merchantReference);
    expect(state(a, r.id)).toBe('executing');

    expect(await verify(a, r.merchantReference)).toEqual({
      status: 200,
      body: { isVerified: true, checksum: expectedChecksum(r.merchantReference) },
    });
    const wrongDest = `&destinationAddress=${'0x3333333333333333333333333333333333333333'}`;
    expect((await verify(a, r.merchantReference, wrongDest)).body).toEqual({ isVerified: false, checksum: '' });
    expect(
      (await verify(a, r.merchantReference, `&destinationAddress=${DEST.toUpperCase().replace('0X', '0x')}`)).body
        .isVerified,
    ).toBe(true);
    const wrongSecret = await verify(a, r.merchantReference, '', `${SECRET}x`);
    expect(wrongSecret.status).toBe(404);
    expect(wrongSecret.body).not.toHaveProperty('isVerified');
    expect((await verify(a, 'a-reference-we-never-made')).body).toEqual({ isVerified: false, checksum: '' });
    expect((await verify(a, '')).body).toEqual({ isVerified: false, checksum: '' });

    // Frozen while the service was asking: the answer is no, and the send is refused by the service.
    await a.command('/treasury', 'freeze suspicious activity', USERS.erin);
    await until('frozen', () => a.app.deps.freeze.current());
    expect((await verify(a, r.merchantReference)).body).toEqual({ isVerified: false, checksum: '' });
    held.release();
    await until('refused by the service', () => state(a, r.id) === 'failed');
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(0);
    expect(a.app.sandbox!.stats.verifications).toEqual([
      { reference: r.merchantReference, verified: false, why: 'the merchant answered isVerified false' },
    ]);
    const card = await until('the card says why', () =>
      a.fake
        .channel(CHANNELS.approvals)
        .find((m) =>
          visibleText(m as { text?: unknown; blocks?: unknown }).includes(
            "The wallet service refused it: the merchant's verification did not confirm it",
          ),
        ),
    );
    expect(card).toBeTruthy();
    // The call while it was pending raised the alarm (the quorum had not approved it). Refused
    // later because sends are frozen, a send the quorum approved: a plain notice, once,
    // whatever the number of calls, and no second alarm.
    await a.app.deps.outbox.drain(5000);
    expect(alertsPosted(a).filter((m) => (m.text ?? '').includes(r.merchantReference))).toHaveLength(1);
    const frozenNotices = noticesPosted(a);
    expect(frozenNotices).toHaveLength(1);
    expect(visibleText(frozenNotices[0] as { text?: unknown; blocks?: unknown })).toContain(
      `withdrawal \`${r.merchantReference.slice(0, 8)}\` (500.00 USDT to`,
    );
    expect(frozenNotices[0]!.text).toContain('refused because sends are frozen');
    expect(frozenNotices[0]!.text).not.toContain('someone holds the API key');
    expect(verificationAudit(a).map((e) => e.details.reason)).toEqual([
      'not_executing',
      'verified',
      'destination_mismatch',
      'verified',
      'unknown_reference',
      'invalid_reference',
      'frozen',
      'frozen',
    ]);
  });

  it('stopping waits for a send in flight: its verification call is still answered, and it is sent', async () => {
    gate = await startGate();
    const g = gate;
    const a = await app({ sandbox: { verificationUrl: () => g.url, verificationTimeoutMs: 60_000 } });
    g.target = `${a.app.url}/webhooks/wallet/${SECRET}/verify`;
    const r = await request(a);
    await approve(a, r);
    const held = await until('the sandbox asking', () => g.held[0]);
    const stopping = a.app.stop();
    // Let the stop go as far as it goes without waiting for the send (closing the server, unfixed).
    await new Promise(setImmediate);
    held.release();
    await stopping;
    expect(a.app.sandbox!.stats.verifications).toEqual([{ reference: r.merchantReference, verified: true }]);
    expect(a.app.sandbox!.stats.withdrawalsCommitted).toBe(1);
    expect(state(a, r.id)).toBe('completed');
  });

  it('at start, a resumed send is asked about only once the verify route answers, and is verified', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'verify-restart-'));
    dirs.push(dataDir);
    const first = await app({ dataDir, env: { PORT: String(port) } });
    // A request approved while sends are frozen stays approved, not sent.
    await first.command('/treasury', 'freeze audit in progress', USERS.erin);
    const freeze = await until('frozen', () => first.app.deps.freeze.current());
    const r = await request(first);
    await approve(first, r);
    await until('approved, held', () => (state(first, r.id) === 'approved' ? true : undefined));
    await first.stop();
    t = undefined;
    // Unfrozen meanwhile (as two admins would): the next start resumes the send.
    const store = await openStore({ dir: dataDir });
    await store.commit((tx) =>
      tx.put(FREEZES, freeze.id, {
        ...freeze,
        unfrozen: { requestedBy: USERS.erin, confirmedBy: USERS.dave, at: new Date().toISOString() },
      }),
    );
    await store.close();

    // A wallet service that does not wait for the app (its verification URL is fixed): is the app listening when it asks?
    const listening: boolean[] = [];
    const second = await app({
      dataDir,
      env: { PORT: String(port) },
      sandbox: {
        verificationUrl: async () => {
          listening.push(await accepts(port));
          return `http://127.0.0.1:${port}/webhooks/wallet/${SECRET}/verify`;
        },
      },
    });
    await until('the service asked', () => (second.app.sandbox!.stats.verifications.length ? true : undefined));
    expect(listening).toEqual([true]);
    // The send was resumed (claimed, then posted) only once the server listened.
    const logs = second.logs();
    expect(logs.indexOf('HTTP server listening')).toBeGreaterThan(-1);
    expect(logs.indexOf('resuming an approved withdrawal')).toBeGreaterThan(logs.indexOf('HTTP server listening'));
    expect(second.app.sandbox!.stats.verifications).toEqual([{ reference: r.merchantReference, verified: true }]);
  });

  it('refuses rejected and expired requests', async () => {
    let now = Date.now();
    const a = await app({ now: () => now });
    const rejected = await request(a, '10');
    await a.app.deps.withdrawals.reject(rejected.id, USERS.carol, 'wrong client');
    const expired = await request(a, '11');
    now += 3 * 3600_000;
    await a.app.deps.withdrawals.expireDue();
    expect(state(a, rejected.id)).toBe('rejected');
    expect(state(a, expired.id)).toBe('expired');
    for (const r of [rejected, expired])
      expect(await verify(a, r.merchantReference)).toEqual({ status: 200, body: { isVerified: false, checksum: '' } });
  });

  it('the full verification URL is shown to an admin only, privately, and never logged; status hides the secret whole', async () => {
    const a = await app();
    const { responseUrl } = await a.command('/treasury', 'verification-url', USERS.erin);
    const [reply] = await a.replies(responseUrl);
    const full = `${a.app.url.replace('localhost', '127.0.0.1')}/webhooks/wallet/${SECRET}/verify`;
    expect(reply).toMatchObject({ response_type: 'ephemeral' });
    expect(visibleText(reply!)).toContain(full);
    const refused = await a.command('/treasury', 'verification-url', USERS.carol);
    expect(visibleText((await a.replies(refused.responseUrl))[0]!)).toContain('not allowed');

    const status = await a.command('/treasury', 'status', USERS.erin);
    const shown = visibleText((await a.replies(status.responseUrl))[0]!);
    // No character of the secret, not even its last ones (issue 20).
    expect(shown).toContain('/webhooks/wallet/••••/verify');
    expect(shown).not.toContain(SECRET.slice(-4));

    // Calls of every kind went through the logs: the secret and the URL are not there.
    await verify(a, 'whatever-ref');
    await postStraightToSandbox(a, 'log-check-ref');
    const logs = a.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(SECRET);
    expect(logs).not.toContain('/verify?reference');
  });
});
