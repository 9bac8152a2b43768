/**
 * The digest's words for a withdrawal and its privacy, through the whole app: a real withdrawal
 * (asked, approved, sent to the sandbox), then `/treasury digest` asked by a viewer in a
 * channel. The outflow names the payee (the allowlist's label for the destination) and the
 * client whose wallet the money left from; the chart goes to the viewer's DM, and nothing is
 * posted in the channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { CLIENT, startWithNames, withdrawWithFee } from '../exports/withdrawal-with-fee.js';

let t: TestApp;
beforeAll(async () => {
  t = await startWithNames();
  await withdrawWithFee(t);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('/treasury digest after a withdrawal', () => {
  it('says whom the money went to and whose wallet it left, and keeps the chart private', async () => {
    const channelBefore = t.fake.channel(CHANNELS.command).length;
    const { responseUrl } = await t.command('/treasury', 'digest', USERS.viewer, { channel: CHANNELS.command });
    const [reply] = await t.replies(responseUrl);
    expect(reply!.response_type).toBe('ephemeral');
    // Issue 24: the value beside the amount (the sandbox's drifting price); the words around it as before.
    const text = visibleText(reply!).replace(/ \(≈ \$[\d,]+\.\d\d\)/g, '');
    expect(visibleText(reply!)).toMatch(/:outbox_tray: Out 5,000\.00 USDT \(≈ \$[\d,]+\.\d\d\) on BSC/);
    expect(text).toContain(
      `:outbox_tray: Out 5,000.00 USDT on BSC · to Exchange hot wallet (0x1111…1111), from client wallet ${CLIENT}`,
    );
    expect(text).toContain('The chart of the last 14 days is on its way to your direct messages.');

    const call = await t.fake.waitFor('files.completeUploadExternal', undefined, 30_000);
    expect(call.args.channel_id).toBe(t.fake.dmChannel(USERS.viewer));
    expect(t.fake.files().every((f) => f.channel === t.fake.dmChannel(USERS.viewer))).toBe(true);
    // Nothing was posted where the digest was asked.
    expect(t.fake.channel(CHANNELS.command)).toHaveLength(channelBefore);
  });
});
