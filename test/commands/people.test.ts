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

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  t.fake.setUser(USERS.dave, { name: 'dave.li', real_name: 'Dave Li' });
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

  it('refuses an ambiguous name, naming the candidates', async () => {
    expect(await reset('@Dave')).toBe(
      ':warning: “@Dave” matches Dave Li and Dave Ross: pick one with an @-mention.\nUsage: `/treasury stepup reset @person`',
    );
  });

  it('resolves a handle, a full name or a unique first name to one person (a deleted account is nobody)', async () => {
    for (const typed of ['@dave.li', '@Dave Li', 'dross', '@Carol']) {
      const text = await reset(typed);
      const id = typed === 'dross' ? DAVE_ROSS : typed === '@Carol' ? USERS.carol : USERS.dave;
      // Resolved: the step-up service answers about that person (nobody here has codes to reset).
      expect(text, typed).toBe(`:no_entry: <@${id}> has no authenticator codes set up: there is nothing to reset.`);
    }
    expect(t.fake.calls().filter((c) => c.method === 'users.list').length).toBeLessThanOrEqual(2);
  });

  it('takes an @-mention as it is, and says so when nobody has the name', async () => {
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
  it('prefers an exact handle or name over a first name', () => {
    expect(matchPerson('@dave', people)).toEqual({
      ok: false,
      message: expect.stringContaining('Dave Li and David Okafor'),
    });
    expect(matchPerson('@dross', people)).toEqual({ ok: true, id: 'U2' });
    expect(matchPerson('@DAVE ROSS', people)).toEqual({ ok: true, id: 'U2' });
  });
  it('lists at most five candidates', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ id: `U${i}`, name: `a${i}`, realName: `Ann ${i}` }));
    expect(matchPerson('ann', many)).toEqual({
      ok: false,
      message: '“ann” matches Ann 0, Ann 1, Ann 2, Ann 3, Ann 4 and 3 more: pick one with an @-mention.',
    });
  });
});
