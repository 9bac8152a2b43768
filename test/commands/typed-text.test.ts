/**
 * Typed text echoed by /treasury now that Slack escapes it (`should_escape: true`): a mention
 * shows as the person or channel the admin saw when typing ("@ada", "#incident"), never as an
 * internal id, and never as a live mention or link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { words, wordsKeepingMentions } from '../../src/slack/text.js';
import { CHANNELS, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('typed mentions in /treasury', () => {
  it('shows a freeze reason with the names typed, not ids, and creates no mention', async () => {
    await t.command('/treasury', 'freeze paid by <@U0ADA|ada>, see <#C01|incident> <!here>', USERS.erin);
    const call = await t.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNELS.approvals && String(c.args.text).includes('Sends are frozen'),
    );
    const shown = visibleText(call.args as { text?: unknown; blocks?: unknown });
    expect(shown).toContain('paid by @ada, see #incident &lt;!here&gt;');
    expect(shown).not.toContain('U0ADA');
    expect(shown).not.toContain('C01');
    expect(shown).not.toContain('<!here>');
  });

  it('echoes a wrong digest argument by its label', async () => {
    const { responseUrl } = await t.command('/treasury', 'digest <@U0ADA|ada>', USERS.erin);
    const [reply] = await t.replies(responseUrl);
    expect(String(reply!.text)).toContain('“@ada” is not a number of days');
  });
});

describe('words', () => {
  it('keeps the label of a mention, the id only when there is none', () => {
    expect(words('<@U0ADA|ada> <#C01|incident> <@U0BOB> <#C02> <!subteam^S1|@finance> <!channel>')).toEqual([
      '@ada',
      '#incident',
      '@U0BOB',
      '#C02',
      '@finance',
      '<!channel>',
    ]);
  });
  it('keeps a user mention whole where a person is taken, and never makes one of typed text', () => {
    expect(wordsKeepingMentions('stepup reset <@U0ADA|ada>')).toEqual(['stepup', 'reset', '<@U0ADA|ada>']);
    expect(wordsKeepingMentions('stepup reset &lt;@U0ADA&gt;')).toEqual(['stepup', 'reset', '@U0ADA']);
  });
});

describe('typed values quoted back by /withdraw', () => {
  it('go through the house escape: no formatting, mention or link from what was typed', async () => {
    const { responseUrl } = await t.command(
      '/withdraw',
      '10 *USDT* BSC 0x2222222222222222222222222222222222222222 _client_@x <!here>',
      USERS.alice,
    );
    const [reply] = await t.replies(responseUrl);
    const text = String(reply!.text);
    expect(text).toContain('Unknown currency "\uff0aUSDT\uff0a"');
    expect(text).toContain('"\uff3fclient\uff3f@x" is not an e-mail address');
    expect(text).not.toContain('<!here>');
    expect(text).not.toContain('*USDT*');
  });

  it('says in words when a mixed-case destination has a broken checksum', async () => {
    const { responseUrl } = await t.command(
      '/withdraw',
      '10 USDT BSC 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD client@example.com',
      USERS.alice,
    );
    const [reply] = await t.replies(responseUrl);
    expect(String(reply!.text)).toBe(
      ":no_entry: Not requested: This address's capital letters do not match its checksum: copy it again from its source.",
    );
  });
});
