/**
 * What people read about a withdrawal, through the real notifier, outbox and fake Slack Web API
 * (src/local/slack-api.ts), with the sandbox wallet behind the service: the approvers' DMs with
 * the card's permalink (chat.getPermalink), the fee estimate before approval, and the settled
 * numbers after.
 */
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox, type Outbox } from '../../../src/outbox/index.js';
import { withdrawalNotifier, type WithdrawalNotifier } from '../../../src/slack/withdrawal-notify.js';
import { startFakeSlack, type FakeSlack, type FakeMessage } from '../../helpers/fake-slack.js';
import { visibleText } from '../../helpers/treasury-app.js';
import { until } from '../../helpers/wait.js';
import { clientOnRecord } from '../../helpers/clients.js';
import { CLIENT, DEST, groups, quietLogger, usdt, world, type World } from '../../withdrawals/helpers.js';
import { fixedPolicy } from '../../../src/policy/source.js';

const APPROVALS = 'C0APPROVALS';

interface Rig {
  w: World;
  fake: FakeSlack;
  outbox: Outbox;
  notifier: WithdrawalNotifier;
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  await rig.outbox.stop();
  await rig.w.close();
  await rig.fake.close();
  rig = undefined;
});

async function setup(o: { permalinks?: boolean } = {}): Promise<Rig> {
  const fake = await startFakeSlack();
  const client = new WebClient('xoxb-messages-test', { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
  let notifier: WithdrawalNotifier | undefined;
  const w = await world({ service: { onChange: (e, tx) => notifier!.onChange(e, tx), now: Date.now } });
  // A client the app has seen (its address generated through it): these messages carry no new-client flag.
  await clientOnRecord(w, CLIENT);
  const outbox = createOutbox({
    store: w.store,
    client,
    logger: quietLogger(),
    paceMs: 2,
    baseBackoffMs: 10,
    maxBackoffMs: 50,
  });
  notifier = withdrawalNotifier({
    store: w.store,
    outbox,
    service: w.service,
    policy: fixedPolicy(w.policy),
    logger: quietLogger(),
    explorerNet: 'testnet',
    ...(o.permalinks === false ? {} : { slack: client, groups }),
  });
  outbox.start();
  rig = { w, fake, outbox, notifier };
  return rig;
}

const topLevel = (r: Rig) => r.fake.channel(APPROVALS).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
const cardOf = (r: Rig) => until('the card', () => topLevel(r)[0]);
const dms = (r: Rig, user: string) => r.fake.channel(r.fake.dmChannel(user)).map((m) => m.text ?? '');
const text = (m: FakeMessage) => visibleText(m as { text?: unknown; blocks?: unknown });

describe('withdrawal messages', () => {
  it('asks each approver once by DM, linking the card by its permalink; Home can ask for the same link', async () => {
    const r = await setup();
    const made = await r.w.service.request(usdt('5000'), 'U0BOB');
    if (!made.ok) throw new Error(made.message);
    const card = await cardOf(r);
    // The policy's approver users and the member of its approver group S0TREASURY (U0GRACE), minus the requester.
    const asked = ['U0CAROL', 'U0DAVE', 'U0ERIN', 'U0FRANK', 'U0ALICE', 'U0GRACE'];
    for (const user of asked) await until(`the DM to ${user}`, () => dms(r, user).length === 1);
    const link = await r.notifier.cardPermalink(made.request.id);
    expect(link).toMatch(
      new RegExp(`^https://[^/]+\\.slack\\.com/archives/${card.channel}/p${card.ts.replace('.', '')}$`),
    );
    for (const user of asked) {
      expect(dms(r, user)[0]).toBe(
        `⏳ Your approval is asked · 5,000.00 USDT on BSC to \`0x2222…2222\`, requested by <@U0BOB>. Expires ${dms(r, user)[0]!.match(/Expires (<!date\^[^>]+>)/)![1]}. ⚠️ not on the allowlist, never paid before.\n<${link}|Open the card>`,
      );
    }
    await r.outbox.drain();
    // The requester is not asked to approve their own request.
    expect(dms(r, 'U0BOB').filter((m) => m.includes('Your approval is asked'))).toEqual([]);
    // heal() at the next start asks again for pending requests: nobody is asked twice.
    await r.notifier.heal();
    await r.outbox.drain();
    for (const user of asked) expect(dms(r, user)).toHaveLength(1);
  });

  it('without a Web API client the DMs point at the approvals channel', async () => {
    const r = await setup({ permalinks: false });
    const made = await r.w.service.request(usdt('50'), 'U0BOB');
    if (!made.ok) throw new Error(made.message);
    await until('the DM to U0CAROL', () => dms(r, 'U0CAROL').length === 1);
    expect(dms(r, 'U0CAROL')[0]).toContain(`\nThe card is in <#${APPROVALS}>.`);
    await r.outbox.drain();
    // Without a group resolver only the users the policy names are asked.
    expect(dms(r, 'U0GRACE')).toEqual([]);
    expect(await r.notifier.cardPermalink(made.request.id)).toBeUndefined();
  });

  it('shows the expected fee before approval (an estimate from the last fee charged), and the settled numbers after', async () => {
    const r = await setup();
    const first = await r.w.service.request(usdt('100', { destination: DEST }), 'U0BOB');
    if (!first.ok) throw new Error(first.message);
    expect(text(await cardOf(r))).toContain('*Fee (estimate)*\n_unknown yet_');
    // As in life, the approver acts on the DM (by then the card's link is known).
    await until('the DM to U0CAROL', () => dms(r, 'U0CAROL').length === 1);
    const approved = await r.w.service.approve(first.request.id, 'U0CAROL');
    if (!approved.ok) throw new Error(approved.message);
    await approved.execution;
    const settled = await until('the settled card', () => text(topLevel(r)[0]!).includes('*Sent*') && topLevel(r)[0]);
    expect(text(settled)).toContain('*Settled*\nDebited 101.00 USDT · delivered 100.00 USDT · fee 1.00 USDT');
    await until('the completion DM', () => dms(r, 'U0BOB').some((m) => m.startsWith('✅ Sent · ')));
    await r.outbox.drain();
    // One DM per event: requested (not from a one-line command), then sent; nothing in between.
    const owner = dms(r, 'U0BOB');
    expect(owner).toHaveLength(2);
    expect(owner[0]).toMatch(
      /^⏳ Requested · your withdrawal of 100.00 USDT on BSC to `0x2222…2222` is waiting for 1 approval\. I will tell you when it is decided\.\n<https:\/\/\S+\|Open the card>$/,
    );
    expect(owner[1]).toMatch(
      /^✅ Sent · your withdrawal of 100.00 USDT on BSC to `0x2222…2222`: Debited 101.00 USDT · delivered 100.00 USDT · fee 1.00 USDT\.\n<https:\/\/\S+\|Open the card>$/,
    );

    const second = await r.w.service.request(usdt('250'), 'U0BOB');
    if (!second.ok) throw new Error(second.message);
    const card = await until('the second card', () => topLevel(r).find((m) => text(m).includes('250.00 USDT on BSC')));
    const fee = text(card);
    expect(fee).toContain(
      '*Fee (estimate)*\n≈ 1.00 USDT · payee receives ≈ 250.00 USDT · debited ≈ 251.00 USDT\n_estimate: the last fee charged on BSC, <!date^',
    );
  });
});
