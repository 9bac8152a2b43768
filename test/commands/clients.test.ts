/**
 * The client checked at request time (issue 25, point 3): a client the app has never seen is
 * flagged on the requester's answer and on the card before anyone approves; the sandbox refuses
 * at the send exactly such a client ("Unknown merchant client"), and a client whose address was
 * generated through `/address` is not flagged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COLLECTION } from '../../src/audit/log.js';
import { CLIENT_ADDRESSES } from '../../src/clients/known.js';
import {
  CHANNELS,
  startTestApp,
  USERS,
  visibleText,
  withdrawFormValues,
  type TestApp,
} from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const DEST = '0x2222222222222222222222222222222222222222';
const FLAG =
  ':warning: *Check before approving:* not on the allowlist · never paid before · new client: no address or transaction on record';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function oneLine(a: TestApp, text: string, user: string = USERS.alice): Promise<string> {
  const { responseUrl } = await a.command('/withdraw', text, user);
  const [reply] = await a.replies(responseUrl);
  return visibleText(reply!);
}

const cards = (a: TestApp) => a.fake.channel(CHANNELS.approvals).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const flagsOf = (m: { blocks?: unknown }) => (m.blocks as Array<{ text?: { text: string } }>)[1]?.text?.text;

describe('a client the app has never seen', () => {
  it('is flagged on the answer and the card before approval; the sandbox refuses the same client at the send', async () => {
    t = await startTestApp();
    const a = t;
    const reply = await oneLine(a, `250 USDT BSC ${DEST} nobody@nowhere.test`);
    expect(reply).toMatch(/^⏳ Requested · 250.00 USDT on BSC is waiting for 1 approval/);
    expect(reply).toContain(
      '⚠️ New client: no address or transaction on record for nobody@nowhere.test. The wallet service pays only from a client’s generated wallet: check the e-mail (`/address` shows the client’s address) before it is approved.',
    );
    const card = await until('the card', () => cards(a)[0]);
    expect(flagsOf(card)).toBe(FLAG);
    const [r] = a.app.deps.withdrawals.list();
    expect(r!.newClient).toBe(true);
    // The flag is in the audit entry of the request, for the record.
    expect(JSON.stringify(a.app.deps.store.all(AUDIT_COLLECTION))).toContain('no address or transaction on record');

    // An approver who approves anyway: the service refuses the very client the app flagged.
    await a.click(
      USERS.carol,
      { actionId: 'wd_approve', value: r!.id },
      {
        channel: CHANNELS.approvals,
        message: { ts: card.ts, blocks: card.blocks },
      },
    );
    const failed = await until('the send refused', () => {
      const now = a.app.deps.withdrawals.get(r!.id)!;
      return now.state === 'failed' ? now : undefined;
    });
    expect(failed.error?.message).toMatch(/Unknown merchant client/);
  });

  it('is no longer new once its address was generated through /address, nor in the form’s answer', async () => {
    t = await startTestApp();
    const a = t;
    const client = 'known@client.example';
    a.app.sandbox!.setBalance(client, 'USDT', 'BSC', '1000');
    await a.command('/address', `${client} usdt bsc`, USERS.viewer);
    await until('the address remembered', () => (a.app.deps.store.all(CLIENT_ADDRESSES).length > 0 ? true : undefined));
    const reply = await oneLine(a, `10 USDT BSC ${DEST} KNOWN@client.example`);
    expect(reply).toMatch(/^⏳ Requested · 10.00 USDT on BSC/);
    expect(reply).not.toContain('New client');
    expect(flagsOf(await until('the card', () => cards(a)[0]))).not.toContain('new client');

    // The form's answer is the requester's DM: a new client is flagged there.
    await a.submitView(USERS.alice, {
      callbackId: 'wd_request_modal',
      viewId: 'V0NEWCLIENT',
      values: withdrawFormValues({ amount: '20', destination: DEST, client: 'first@client.example', note: null }),
    });
    const dm = await until('the requester DM', () =>
      a.fake.channel(a.fake.dmChannel(USERS.alice)).find((m) => /first@client\.example/.test(m.text ?? '')),
    );
    expect(dm.text).toContain('⚠️ New client: no address or transaction on record for first@client.example.');
  });
});
