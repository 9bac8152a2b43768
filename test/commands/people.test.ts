/**
 * People by name (issue 25, point 7): `/treasury stepup reset @Dave` as real Slack sends it with
 * `should_escape: true` when no one was picked from the list: a plain name, looked up in the
 * workspace's directory (users.list on the fake Web API), to one person or a refusal naming
 * the candidates.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchPerson } from '../../src/slack/people.js';
import { startTestApp, USERS, type TestApp } from '../helpers/treasury-app.js';

const DAVE_ROSS = 'U0DAVEROSS';
const MALLORY = 'U0MALLORY';
const FOUND_DAVE_LI = '\nFound by the name you typed: Dave Li (@dave.li).';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // Dave Li has no display name; Mallory's display name is "Dave": a mention of her renders as "@Dave".
  t.fake.setUser(USERS.dave, { name: 'dave.li', real_name: 'Dave Li', profile: { display_name: '' } });
  t.fake.setUser(MALLORY, { name: 'mallory', real_name: 'Mallory Ross', profile: { display_name: 'Dave' } });
  t.fake.setUser('U0DAVEBOT1', { name: 'davebot', real_name: 'Dave', is_bot: true });
  t.fake.setUser(DAVE_ROSS, { name: 'dross', real_name: 'Dave Ross' });
  t.fake.setUser(USERS.carol, { name: 'carol', real_name: 'Carol Mbeki' });
  t.fake.setUser('U0GONE0001', { name: 'carol.old', real_name: 'Carol Mbeki', deleted: true });
});
afterAll(async () => {
  await t?.stop();
});

async function reset(text: string): Promise<string> {
  const { res, responseUrl } = await t.command('/treasury', `stepup reset ${text}`, USERS.erin);
  expect(res.status).toBe(200);
  const [reply] = await t.replies(responseUrl);
  return String(reply!.text);
}

describe('people by name', () => {
  it('declares should_escape on /treasury (it takes people), not on the commands that take e-mails', () => {
    const manifest = parseYaml(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
      features: { slash_commands: Array<{ command: string; should_escape: boolean }> };
      oauth_config: { scopes: { bot: string[] } };
    };
    const escaped = Object.fromEntries(manifest.features.slash_commands.map((c) => [c.command, c.should_escape]));
    expect(escaped).toMatchObject({ '/treasury': true, '/address': false, '/withdraw': false });
    expect(manifest.oauth_config.scopes.bot).toContain('users:read');
  });

  it('refuses a name that any two ways of matching give to different people, naming them (never a bot)', async () => {
    // Mallory's display name is exactly "Dave"; Dave Li's and Dave Ross's first name is "Dave": all three.
    expect(await reset('@Dave')).toBe(
      ':warning: “@Dave” matches Dave Li (@dave.li), Dave Ross (@dross) and Mallory Ross (@mallory): pick one with an @-mention.\nUsage: `/treasury stepup reset @person`',
    );
  });

  it('takes an id only from a mention token or a bare id the directory has', async () => {
    for (const typed of ['@UMA', '@WALLY', 'WALLY'])
      expect(await reset(typed), typed).toBe(
        `:warning: Nobody in this workspace is called “${typed}”: pick the person with an @-mention.\nUsage: \`/treasury stepup reset @person\``,
      );
    expect(await reset(MALLORY)).toBe(
      `:no_entry: <@${MALLORY}> has no authenticator codes set up: there is nothing to reset.\nFound by the name you typed: Mallory Ross (@mallory).`,
    );
    // A mention typed out by hand arrives escaped: not a token, but a bare id the directory has, so said by name.
    expect(await reset(`&lt;@${MALLORY}&gt;`)).toContain('Found by the name you typed: Mallory Ross (@mallory).');
    expect(await reset('&lt;@U0NOBODY1&gt;')).toContain('Nobody in this workspace is called');
  });

  it('resolves a handle, a full name or a unique first name to one person (a deleted account is nobody)', async () => {
    for (const typed of ['@dave.li', '@Dave Li', 'dross', '@Carol']) {
      const text = await reset(typed);
      const id = typed === 'dross' ? DAVE_ROSS : typed === '@Carol' ? USERS.carol : USERS.dave;
      // Resolved: the step-up service answers about that person (nobody here has codes to reset).
      const found =
        typed === 'dross'
          ? '\nFound by the name you typed: Dave Ross (@dross).'
          : typed === '@Carol'
            ? '\nFound by the name you typed: Carol Mbeki (@carol).'
            : FOUND_DAVE_LI;
      expect(text, typed).toBe(
        `:no_entry: <@${id}> has no authenticator codes set up: there is nothing to reset.${found}`,
      );
    }
    expect(t.fake.calls().filter((c) => c.method === 'users.list').length).toBeLessThanOrEqual(2);
  });

  it('takes an @-mention as it is, and says so when nobody has the name', async () => {
    // The mention's label is not looked up: "<@U0MALLORY|Dave>" is Mallory, said without a "Found by" line.
    expect(await reset(`<@${MALLORY}|Dave>`)).toBe(
      `:no_entry: <@${MALLORY}> has no authenticator codes set up: there is nothing to reset.`,
    );
    expect(await reset(`<@${USERS.dave}|dave.li>`)).toContain(`<@${USERS.dave}> has no authenticator codes`);
    expect(await reset('@Zed')).toBe(
      ':warning: Nobody in this workspace is called “@Zed”: pick the person with an @-mention.\nUsage: `/treasury stepup reset @person`',
    );
  });
});

describe('matchPerson', () => {
  const people = [
    { id: 'U1', name: 'dave.li', realName: 'Dave Li', displayName: 'Dave' },
    { id: 'U2', name: 'dross', realName: 'Dave Ross', displayName: '' },
    { id: 'U3', name: 'dave', realName: 'David Okafor', displayName: 'dave' },
  ];
  it('takes a person only when every way of matching together gives one', () => {
    // U1's display name, U2's first name and U3's handle are all "dave": no exact match wins.
    expect(matchPerson('@dave', people)).toEqual({
      ok: false,
      message:
        '“@dave” matches Dave Li (@dave.li), Dave Ross (@dross) and David Okafor (@dave): pick one with an @-mention.',
    });
    expect(matchPerson('@dross', people)).toEqual({
      ok: true,
      id: 'U2',
      byName: { name: 'Dave Ross', handle: 'dross' },
    });
    expect(matchPerson('@DAVE ROSS', people)).toMatchObject({ ok: true, id: 'U2' });
    expect(matchPerson('<@U09|dave>', people)).toEqual({ ok: true, id: 'U09' });
    expect(matchPerson('@U09', people)).toMatchObject({ ok: false });
  });
  it('takes only an id from a directory not read whole', () => {
    expect(matchPerson('@dross', people, { partial: true })).toEqual({
      ok: false,
      message: 'The workspace is too large to look names up: use an @-mention.',
    });
    expect(matchPerson('U2', people, { partial: true })).toMatchObject({ ok: true, id: 'U2' });
  });
  it('lists at most five candidates', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ id: `U${i}`, name: `a${i}`, realName: `Ann ${i}` }));
    expect(matchPerson('ann', many)).toEqual({
      ok: false,
      message:
        '“ann” matches Ann 0 (@a0), Ann 1 (@a1), Ann 2 (@a2), Ann 3 (@a3), Ann 4 (@a4) and 3 more: pick one with an @-mention.',
    });
  });
});

describe('the directory when it cannot be read whole', () => {
  let big: TestApp;
  beforeAll(async () => {
    big = await startTestApp();
  });
  afterAll(async () => {
    await big?.stop();
  });
  const resetIn = async (text: string) => {
    const { responseUrl } = await big.command('/treasury', `stepup reset ${text}`, USERS.erin);
    const [reply] = await big.replies(responseUrl);
    return String(reply!.text);
  };

  it('asks for a reinstall when the install lacks users:read, logged once', async () => {
    big.fake.failNext('users.list', { error: 'missing_scope', times: 2 });
    for (let i = 0; i < 2; i++) {
      const text = await resetIn('@Carol');
      expect(text).toContain('an admin must reinstall the app to grant it the new permission');
      expect(text).not.toContain('try again');
    }
    expect(big.logs().match(/users.list refused with missing_scope/g)?.length).toBe(1);
  });

  it('refuses names once the directory was cut short, and still takes a mention', async () => {
    for (let i = 0; i <= 50 * 200; i++) big.fake.setUser(`U0P${String(i).padStart(6, '0')}`, { name: `p${i}` });
    big.fake.setUser('U0ZCAROL1', { name: 'zcarol', real_name: 'Zed Carol' });
    expect(await resetIn('@p3')).toBe(
      ':warning: The workspace is too large to look names up: use an @-mention.\nUsage: `/treasury stepup reset @person`',
    );
    expect(await resetIn(`<@${USERS.carol}|carol>`)).toContain(`<@${USERS.carol}> has no authenticator codes`);
  }, 30_000);
});
