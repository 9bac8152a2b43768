import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, signBody, type Alert, type StoredEvent } from '../../src/alerts/index.js';
import { advances } from '../../src/alerts/status.js';
import { WEBHOOK_STATUS_RANK, isFinalWebhookStatus } from '../../src/wallet/enums.js';
import { collection } from '../../src/store/index.js';
import { HASH_A, HASH_B, SECRET, depositSample, listDeposits, send, startPipeline, type Pipeline } from './setup.js';

/** A collection of the test's own, standing for the withdrawal service's links. */
const WITHDRAWAL_LINKS = collection<Record<string, unknown>>('withdrawal_links');

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const alerts = () => p!.store.all<Alert>(ALERT_COLLECTIONS.alerts);
const events = () => p!.store.all<StoredEvent>(ALERT_COLLECTIONS.events);
const top = (channel: string) => p!.fake.channel(channel).filter((m) => !m.thread_ts);

describe('webhook receiver', () => {
  it('stores the PascalCase deposit sample before acking, posts it, and moves forward with later statuses', async () => {
    p = await startPipeline();
    const r = await send(p.webhookUrl, depositSample({ status: 2 }));
    expect(r).toEqual({ status: 200, body: { ok: true, duplicate: false } });
    // Durable before the 2xx: the alert and its outbox entry are already in the store.
    expect(alerts()).toHaveLength(1);
    expect(alerts()[0]).toMatchObject({
      kind: 'deposit',
      status: 'PENDING',
      amount: '150.25',
      currency: 'USDT',
      network: 'BSC',
      channel: 'C0USDT',
      clientEmail: 'client@example.com',
    });
    expect(events()[0]!.raw).toBe(depositSample({ status: 2 }));
    await p.outbox.drain();
    const [msg] = top('C0USDT');
    expect(msg).toBeDefined();
    const shown = JSON.stringify(msg!.blocks);
    expect(shown).toContain('150.25 USDT');
    expect(shown).toContain('client@example.com');
    expect(shown).toContain('0x2222222222222222222222222222222222222222');
    expect(shown).toContain(`https://bscscan.com/tx/${HASH_A}`);
    // The wallet's history does not list HASH_A: a claim, status first, in plain words.
    expect(shown).toContain('Reported by the wallet service · checking (it says pending)');

    // CONFIRMED as a numeric string: the same message is edited and its thread gets a line;
    // still only reported (never ✅) while the history does not show it.
    expect((await send(p.webhookUrl, depositSample({ status: '3' }))).status).toBe(200);
    await p.outbox.drain();
    expect(top('C0USDT')).toHaveLength(1);
    const edited = JSON.stringify(top('C0USDT')[0]!.blocks);
    expect(edited).toContain(':mag: Reported by the wallet service · checking');
    expect(edited).not.toContain(':white_check_mark:');
    expect(p.fake.thread('C0USDT', msg!.ts).map((m) => m.text)).toEqual([
      expect.stringMatching(/^Reported confirmed by the wallet service, <!date\^/),
    ]);

    // A redelivery is acknowledged and ignored; a late PENDING is recorded but changes nothing.
    expect((await send(p.webhookUrl, depositSample({ status: 3 }))).body).toEqual({ ok: true, duplicate: true });
    expect((await send(p.webhookUrl, depositSample({ status: 'ABOUT_TO_INITIATE' }))).body).toEqual({
      ok: true,
      duplicate: false,
    });
    await p.outbox.drain();
    const a = alerts()[0]!;
    expect(a.status).toBe('CONFIRMED');
    expect(a.history.map((h) => [h.status, h.applied])).toEqual([
      ['PENDING', true],
      ['CONFIRMED', true],
      ['ABOUT_TO_INITIATE', false],
    ]);
    expect(p.fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts)).toHaveLength(1);
    expect(p.fake.calls('chat.update')).toHaveLength(1);
  });

  it("links to the test networks' explorer when told to (sandbox wallet service)", async () => {
    p = await startPipeline({ explorer: 'testnet' });
    await send(p.webhookUrl, depositSample({ status: 3 }));
    await p.outbox.drain();
    const shown = JSON.stringify(top('C0USDT')[0]!.blocks);
    expect(shown).toContain(`https://testnet.bscscan.com/tx/${HASH_A}`);
    expect(shown).not.toContain('https://bscscan.com/');
  });

  it('out of order: CONFIRMED then PENDING leaves one confirmed alert and one message', async () => {
    p = await startPipeline();
    await send(p.webhookUrl, depositSample({ status: 3, hash: HASH_B }));
    await send(p.webhookUrl, depositSample({ status: 2, hash: HASH_B }));
    await p.outbox.drain();
    expect(alerts()).toHaveLength(1);
    expect(alerts()[0]!.status).toBe('CONFIRMED');
    expect(top('C0USDT')).toHaveLength(1);
    expect(p.fake.calls('chat.update')).toHaveLength(0);
    expect(JSON.stringify(top('C0USDT')[0]!.blocks)).toContain(':mag: Reported by the wallet service · checking');
  });

  it('concurrent duplicate deliveries make one alert and one message', async () => {
    p = await startPipeline();
    const body = depositSample({ status: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, () => send(p!.webhookUrl, body)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => (r.body as { duplicate: boolean }).duplicate === false)).toHaveLength(1);
    await p.outbox.drain();
    expect(alerts()).toHaveLength(1);
    expect(events()).toHaveLength(1);
    expect(p.fake.calls('chat.postMessage')).toHaveLength(1);
  });

  it('a wrong secret gets 404 and stores nothing', async () => {
    p = await startPipeline();
    const r = await send(p.webhookUrl.replace(SECRET, `${SECRET.slice(0, -1)}x`), depositSample());
    expect(r.status).toBe(404);
    const r2 = await send(p.webhookUrl.replace(SECRET, 'short'), depositSample());
    expect(r2.status).toBe(404);
    expect(events()).toHaveLength(0);
    expect(alerts()).toHaveLength(0);
  });

  it('malformed JSON gets 400 and stores nothing', async () => {
    p = await startPipeline();
    expect((await send(p.webhookUrl, '{"TransactionType": 1, "Data": {')).status).toBe(400);
    expect(events()).toHaveLength(0);
  });

  it('an oversized body gets 413 without being read', async () => {
    p = await startPipeline({ alerts: { maxBodyBytes: 1024 } });
    const url = new URL(p.webhookUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(`{"padding":"${'x'.repeat(2048)}`); // never finished: the server must answer anyway
    });
    expect(status).toBe(413);
    // Streamed without a content-length, the cap still applies.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(`{"padding":"${'x'.repeat(4096)}`);
    });
    expect(chunked).toBe(413);
    expect(events()).toHaveLength(0);
  });

  it('HMAC: a valid Standard Webhooks signature passes; bad, missing or stale ones get 401', async () => {
    p = await startPipeline({ alerts: { signatureRequired: true } });
    const body = depositSample({ status: 3 });
    const ts = Math.floor(Date.now() / 1000);
    const good = signBody(SECRET, 'msg_1', ts, body);
    const headers = (t: number, sig: string) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(t),
      'webhook-signature': sig,
    });
    expect((await send(p.webhookUrl, body, headers(ts, `v1,AAAA${good.slice(7)}`))).status).toBe(401);
    expect((await send(p.webhookUrl, body)).status).toBe(401);
    const stale = ts - 6 * 60;
    expect((await send(p.webhookUrl, body, headers(stale, signBody(SECRET, 'msg_1', stale, body)))).status).toBe(401);
    expect((await send(p.webhookUrl, `${body} `, headers(ts, good))).status).toBe(401);
    expect(events()).toHaveLength(0);
    // Several signatures (key rotation): one valid is enough.
    expect((await send(p.webhookUrl, body, headers(ts, `v1,bm9wZQ== ${good}`))).status).toBe(200);
    expect(events()).toHaveLength(1);
  });

  it('camelCase withdrawal with numeric-string enums: routed, exact amount, linked by merchantReference', async () => {
    const linked: string[] = [];
    const hooked: string[] = [];
    p = await startPipeline({
      alerts: {
        linkWithdrawal: (tx, e) => {
          tx.put(WITHDRAWAL_LINKS, e.merchantReference, { alertId: e.alertId, status: e.status });
          linked.push(e.merchantReference);
        },
        onWithdrawalEvent: (e) => void hooked.push(`${e.merchantReference}:${e.status}`),
      },
    });
    const body = `{"transactionType":"WITHDRAW","data":{"checksum":"00","receiverAddress":"0x3333333333333333333333333333333333333333","amountRequested":"0.123456789012345678","amountSent":0.123456789012345678,"charge":"0.01","currency":"8","networkChain":"ETHEREUM","status":"CONFIRMED","transactionHash":"${HASH_B}","merchantReference":"wd_42","brandNewField":{"x":1}}}`;
    expect((await send(p.webhookUrl, body)).status).toBe(200);
    await p.outbox.drain();
    await new Promise((r) => setTimeout(r, 20));
    const a = alerts()[0]!;
    expect(a).toMatchObject({
      kind: 'withdrawal',
      currency: 'ETH',
      network: 'ETH',
      amount: '0.123456789012345678',
      merchantReference: 'wd_42',
      channel: 'C0WITHDRAW',
      status: 'CONFIRMED',
    });
    expect(a.extra).toEqual({ brandNewField: { x: '1' } });
    expect(p.store.get(WITHDRAWAL_LINKS, 'wd_42')).toEqual({ alertId: a.id, status: 'CONFIRMED' });
    expect(linked).toEqual(['wd_42']);
    expect(hooked).toEqual(['wd_42:CONFIRMED']);
    expect(JSON.stringify(top('C0WITHDRAW')[0]!.blocks)).toContain('wd_42');
  });

  it('remittance, enum names, string amounts; unknown payloads are kept and alerted generically', async () => {
    p = await startPipeline();
    const remittance = `{"transactionType":5,"data":{"amount":"25.5","charge":"0","currency":"USDC","networkChain":3,"status":"FAILED","transactionHash":"0x${'c'.repeat(64)}","senderAddress":"0x4444444444444444444444444444444444444444","receiverAddress":"0x5555555555555555555555555555555555555555","reference":"rm_1"}}`;
    expect((await send(p.webhookUrl, remittance)).status).toBe(200);
    const unknown = '{"event":"wallet.frozen","Amount":12.000000000000000001,"reason":"compliance"}';
    expect((await send(p.webhookUrl, unknown)).status).toBe(200);
    expect((await send(p.webhookUrl, unknown)).body).toEqual({ ok: true, duplicate: true });
    await p.outbox.drain();
    const [rem, gen] = alerts();
    expect(rem).toMatchObject({
      kind: 'remittance',
      currency: 'USDC',
      network: 'POLYGON',
      amount: '25.5',
      status: 'FAILED',
      reference: 'rm_1',
      channel: 'C0ALERTS',
    });
    expect(gen).toMatchObject({ kind: 'unknown', channel: 'C0ALERTS', amount: '12.000000000000000001' });
    expect(gen!.extra).toMatchObject({ event: 'wallet.frozen', reason: 'compliance' });
    const msgs = top('C0ALERTS');
    expect(msgs).toHaveLength(2);
    expect(msgs[0]!.text).toMatch(/^Warning: Remittance/);
    expect(JSON.stringify(msgs[0]!.blocks)).toContain(':warning:');
    // Money went out, not in, on a notification's word alone: a claim, never "did not leave" (a resend could pay twice).
    expect(JSON.stringify(msgs[0]!.blocks)).toMatch(
      /A notification says this remittance failed\.\*[^"]*do not send it again until it does/,
    );
    expect(JSON.stringify(msgs[0]!.blocks)).not.toMatch(/did not leave/);
    expect(JSON.stringify(msgs[0]!.blocks)).not.toMatch(/credited/);
    expect(JSON.stringify(msgs[1]!.blocks)).toContain('wallet.frozen');
  });

  it('a FAILED or NOT_PROPAGATED deposit is posted with a visible warning; a confirmed one is not', async () => {
    p = await startPipeline();
    const failedHash = `0x${'f'.repeat(64)}`;
    const unsentHash = `0x${'e'.repeat(64)}`;
    // One at a time: failures never seen pending moved no money and may share a batch message
    // when they arrive together (src/alerts/posting.ts); alone, each is its own message.
    for (const [hash, status] of [
      [failedHash, 'FAILED'],
      [unsentHash, 'NOT_PROPAGATED'],
      [HASH_A, 'CONFIRMED'],
    ] as const) {
      await send(p.webhookUrl, depositSample({ hash, status }));
      await p.outbox.drain();
    }
    const byHash = (h: string) => top('C0USDT').find((m) => JSON.stringify(m.blocks).includes(h));
    const warningOf = (blocks: unknown[] | undefined) =>
      (blocks as Array<{ type: string; text?: { text: string } }>)
        .filter((b) => b.type === 'section' && b.text?.text.startsWith(':warning:'))
        .map((b) => b.text!.text);
    const headerOf = (blocks: unknown[] | undefined) =>
      (blocks as Array<{ type: string; text?: { text: string } }>).find((b) => b.type === 'header')!.text!.text;

    const failed = byHash(failedHash)!;
    expect(failed.text).toMatch(/^Warning: Deposit of 150\.25 USDT/);
    expect(headerOf(failed.blocks)).toMatch(/^⚠️ /);
    expect(warningOf(failed.blocks)).toEqual([':warning: *This deposit failed.* No funds were credited by it.']);

    const unsent = byHash(unsentHash)!;
    expect(unsent.text).toMatch(/^Warning: Deposit of 150\.25 USDT/);
    expect(headerOf(unsent.blocks)).toMatch(/^⚠️ /);
    expect(warningOf(unsent.blocks)).toEqual([
      ':warning: *This deposit was not propagated to the network.* No funds were credited by it.',
    ]);

    const fine = byHash(HASH_A)!;
    expect(fine.text).not.toMatch(/Warning/);
    expect(headerOf(fine.blocks)).not.toMatch(/⚠️/);
    expect(warningOf(fine.blocks)).toEqual([]);
  });

  it('mentions @here strictly above the per-currency threshold (decimal compare), once the history confirms it', async () => {
    p = await startPipeline();
    const [h1, h2, h3] = ['1', '2', '3'].map((c) => `0x${c.repeat(64)}`);
    listDeposits(p, [
      { hash: h1!, amount: '10000.000001' },
      { hash: h2!, amount: '10000' },
      { hash: h3!, amount: '0.6', currency: 'BTC' },
    ]);
    await send(p.webhookUrl, depositSample({ hash: h1, status: 3, amount: '10000.000001' }));
    await p.alerts.idle();
    await p.outbox.drain();
    await send(p.webhookUrl, depositSample({ hash: h2, status: 3, amount: '10000.000000' }));
    await send(p.webhookUrl, depositSample({ hash: h3, status: 3, amount: '"0.6"', currency: 'BTC' }));
    await p.alerts.idle();
    await p.outbox.drain();
    // The alert never carries the @here; a short post of its own follows, once confirmed.
    const usdt = top('C0USDT');
    expect(usdt.filter((m) => m.text!.includes('<!here>'))).toHaveLength(1);
    expect(usdt.find((m) => m.text!.includes('<!here>'))!.text).toMatch(
      /^<!here> Large deposit confirmed by the wallet's history: \*10,000\.000001 USDT\* on BSC/,
    );
    expect(top('C0ALERTS').map((m) => m.text!.startsWith('<!here>'))).toEqual([false, true]);
  });

  it('one withdrawal, one alert: notified before its hash, redelivered with another checksum, then with the hash', async () => {
    p = await startPipeline();
    const hash = `0x${'d'.repeat(64)}`;
    const sent: boolean[] = [];
    for (const [status, checksum, withHash] of [
      ['ABOUT_TO_INITIATE', '01', false],
      ['ABOUT_TO_INITIATE', '02', false], // the same notification, another checksum
      ['PENDING', '03', true],
      ['CONFIRMED', '04', true],
      ['CONFIRMED', '05', true],
    ] as const) {
      const r = await send(p.webhookUrl, withdrawal({ status, checksum, ...(withHash ? { hash } : {}) }));
      sent.push((r.body as { duplicate: boolean }).duplicate);
    }
    expect(sent).toEqual([false, true, false, false, true]);
    // The hash alone (no reference) and a late early status change nothing either.
    expect(
      (await send(p.webhookUrl, withdrawal({ status: 'CONFIRMED', checksum: '06', hash, noReference: true }))).body,
    ).toEqual({ ok: true, duplicate: true });
    expect((await send(p.webhookUrl, withdrawal({ status: 'ABOUT_TO_INITIATE', checksum: '07' }))).body).toEqual({
      ok: true,
      duplicate: true,
    });
    await p.outbox.drain();
    expect(alerts()).toHaveLength(1);
    const a = alerts()[0]!;
    expect(a).toMatchObject({ kind: 'withdrawal', merchantReference: 'wd_77', hash, status: 'CONFIRMED' });
    expect(a.history.map((h) => [h.status, h.applied])).toEqual([
      ['ABOUT_TO_INITIATE', true],
      ['PENDING', true],
      ['CONFIRMED', true],
    ]);
    expect(top('C0WITHDRAW')).toHaveLength(1);
    expect(p.fake.calls('chat.postMessage').filter((c) => !c.args.thread_ts)).toHaveLength(1);
    expect(JSON.stringify(top('C0WITHDRAW')[0]!.blocks)).toContain(hash);
  });

  it('a withdrawal first told by hash alone keeps its alert when the reference turns up; two references paid in one batch stay two', async () => {
    p = await startPipeline();
    const hash = `0x${'e'.repeat(64)}`;
    await send(p.webhookUrl, withdrawal({ status: 'PENDING', checksum: '01', hash, noReference: true }));
    await send(p.webhookUrl, withdrawal({ status: 'CONFIRMED', checksum: '02', hash }));
    await send(p.webhookUrl, withdrawal({ status: 'CONFIRMED', checksum: '03', hash, reference: 'wd_other' }));
    await p.outbox.drain();
    expect(alerts().map((a) => [a.merchantReference, a.hash, a.status])).toEqual([
      ['wd_77', hash, 'CONFIRMED'],
      ['wd_other', hash, 'CONFIRMED'],
    ]);
    expect(top('C0WITHDRAW')).toHaveLength(2);
  });

  it('a merchant deposit webhook and reconciliation (DEPOSIT) of the same hash make one alert, whichever comes first', async () => {
    p = await startPipeline();
    p.sandbox.setBalance('payer@example.com', 'USDT', 'BSC', '0');
    const first = await p.sandbox.deposit({
      to: 'payer@example.com',
      amount: '150.25',
      currency: 'USDT',
      network: 'BSC',
    });
    // Webhook first (PENDING), then reconciliation sees it settled.
    expect((await send(p.webhookUrl, merchantDeposit(first.transactionHash!, 2))).body).toEqual({
      ok: true,
      duplicate: false,
    });
    const report = await p.alerts.reconcile();
    expect(report.created).toEqual([]);
    expect(report.advanced).toHaveLength(1);
    // Reconciliation first, then the merchant deposit webhook of the same status.
    const second = await p.sandbox.deposit({
      to: 'payer@example.com',
      amount: '150.25',
      currency: 'USDT',
      network: 'BSC',
    });
    expect((await p.alerts.reconcile()).created).toHaveLength(1);
    expect(
      (await send(p.webhookUrl, merchantDeposit(second.transactionHash!.toUpperCase().replace(/^0X/, '0x'), 3))).body,
    ).toEqual({ ok: true, duplicate: true });
    await p.outbox.drain();
    expect(alerts().map((a) => [a.hash, a.status])).toEqual([
      [first.transactionHash, 'CONFIRMED'],
      [second.transactionHash, 'CONFIRMED'],
    ]);
    expect(top('C0USDT')).toHaveLength(2);
  });

  it('no hash, no reference: deduplicated on its stable fields, never on the checksum', async () => {
    p = await startPipeline();
    const remit = (checksum: string, amount: string, status = 'ABOUT_TO_INITIATE', hash?: string) =>
      `{"transactionType":5,"data":{"checksum":"${checksum}","amount":"${amount}","charge":"0","currency":"USDC","networkChain":"POLYGON","status":"${status}",` +
      (hash ? `"transactionHash":"${hash}",` : '') +
      `"senderAddress":"0x4444444444444444444444444444444444444444","receiverAddress":"0x5555555555555555555555555555555555555555"}}`;
    expect((await send(p.webhookUrl, remit('AA', '25.5'))).body).toEqual({ ok: true, duplicate: false });
    expect((await send(p.webhookUrl, remit('BB', '25.50'))).body).toEqual({ ok: true, duplicate: true });
    expect((await send(p.webhookUrl, remit('CC', '25.5', 'PENDING'))).body).toEqual({ ok: true, duplicate: false });
    // Another amount is another transaction.
    expect((await send(p.webhookUrl, remit('DD', '30'))).body).toEqual({ ok: true, duplicate: false });
    // The hash turns up: the same alert, which keeps it, and later news of that hash finds it.
    const hash = `0x${'f'.repeat(64)}`;
    expect((await send(p.webhookUrl, remit('EE', '25.5', 'CONFIRMED', hash))).body).toEqual({
      ok: true,
      duplicate: false,
    });
    expect((await send(p.webhookUrl, remit('FF', '25.5', 'CONFIRMED', hash))).body).toEqual({
      ok: true,
      duplicate: true,
    });
    await p.outbox.drain();
    expect(alerts().map((a) => [a.amount, a.status, a.hash])).toEqual([
      ['25.5', 'CONFIRMED', hash],
      ['30', 'ABOUT_TO_INITIATE', undefined],
    ]);
    expect(top('C0ALERTS')).toHaveLength(2);
  });
});

describe('webhook status order', () => {
  it('is the one table of the wallet enums: final statuses rank top and never move', () => {
    expect(WEBHOOK_STATUS_RANK).toEqual({
      ABOUT_TO_INITIATE: 1,
      PENDING: 2,
      CONFIRMED: 3,
      FAILED: 3,
      NOT_PROPAGATED: 3,
    });
    expect(['CONFIRMED', 'FAILED', 'NOT_PROPAGATED', '3', 'failed'].map(isFinalWebhookStatus)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['ABOUT_TO_INITIATE', 'PENDING', 'constructor', undefined, 'SETTLED'].map(isFinalWebhookStatus)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(advances('PENDING', 'CONFIRMED')).toBe(true);
    expect(advances('CONFIRMED', 'FAILED')).toBe(false);
    expect(advances('PENDING', 'ABOUT_TO_INITIATE')).toBe(false);
    expect(advances('PENDING', 'constructor')).toBe(false);
  });
});

/** The documented camelCase withdrawal webhook (merchantReference wd_77 unless told otherwise). */
function withdrawal(o: {
  status: string;
  checksum: string;
  hash?: string;
  reference?: string;
  noReference?: boolean;
}): string {
  const data: Record<string, string> = {
    checksum: o.checksum,
    receiverAddress: '0x3333333333333333333333333333333333333333',
    amountRequested: '12.5',
    amountSent: o.status === 'ABOUT_TO_INITIATE' ? '0' : '12.5',
    charge: '0.1',
    currency: '4',
    networkChain: 'BSC',
    status: o.status,
    ...(o.hash ? { transactionHash: o.hash } : {}),
    ...(o.noReference ? {} : { merchantReference: o.reference ?? 'wd_77' }),
  };
  return JSON.stringify({ transactionType: 'WITHDRAW', data });
}

/** The deposit sample as a MERCHANT_DEPOSIT (TransactionType 4). */
function merchantDeposit(hash: string, status: number): string {
  return depositSample({ hash, status }).replace('"TransactionType":1', '"TransactionType":4');
}
