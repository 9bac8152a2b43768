/**
 * The listener callbacks called directly, with the app's real parts (store, sandbox-backed
 * wallet, withdrawal service) and recorders for what Bolt hands a listener (ack, respond,
 * the Web API client). The end-to-end tests beside this one drive the same code over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressCommand } from '../../commands/address/command.js';
import type { CommandDeps } from '../../commands/deps.js';
import { helpText } from '../../commands/help.js';
import { treasuryCommand } from '../../commands/treasury/command.js';
import { txNav } from '../../commands/tx/nav.js';
import { approve } from '../../commands/withdraw/approve.js';
import { withdrawCommand } from '../../commands/withdraw/command.js';
import { VIEWS } from '../../commands/withdraw/modals.js';
import { resolveSubmitted } from '../../commands/withdraw/resolve-submitted.js';
import { appHomeOpened, homeApprove, homePublisher } from '../../src/slack/home/index.js';
import { matchPerson } from '../../src/slack/people.js';
import { roleMiddleware } from '../../src/slack/roles.js';
import { startTestApp, USERS, FINANCE_GROUP, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp;
let deps: CommandDeps;
beforeAll(async () => {
  t = await startTestApp();
  // Slack's user groups, answered as the fake workspace would.
  deps = {
    ...t.app.deps,
    groups: { membersOf: async (g) => (g === FINANCE_GROUP ? [USERS.groupMember] : []) },
    // Only @-mentions here: names are looked up through Slack's directory in test/commands/people.test.ts.
    people: { resolve: async (typed) => matchPerson(typed, []) },
  };
});
afterAll(async () => {
  await t?.stop();
});

/** What Bolt passes a listener, recorded: every ack, every respond, every Web API call. */
function bolt() {
  const acks: unknown[] = [];
  const replies: Array<Record<string, unknown>> = [];
  const calls: Array<{ method: string; args: Record<string, unknown> }> = [];
  const record = (method: string, result: unknown) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    return result;
  };
  const client = {
    views: { open: record('views.open', { ok: true }), publish: record('views.publish', { ok: true }) },
    conversations: { open: record('conversations.open', { ok: true, channel: { id: 'D0DIRECT' } }) },
    files: { uploadV2: record('files.uploadV2', { ok: true }) },
  } as never;
  return {
    acks,
    replies,
    calls,
    client,
    ack: async (r?: unknown) => void acks.push(r ?? null),
    respond: (async (m: Record<string, unknown>) => void replies.push(m)) as never,
    text: () => replies.map((r) => String(r.text ?? '')).join('\n'),
  };
}

const command = (name: string, text: string, user: string) =>
  ({ command: name, text, user_id: user, trigger_id: 'trigger-1', channel_id: 'C0WORKROOM' }) as never;
const button = (value: string, user: string) => ({
  body: { user: { id: user }, trigger_id: 'trigger-2' } as never,
  action: { type: 'button', action_id: 'x', block_id: 'b', value, action_ts: '1' } as never,
});

describe('requireRole middleware', () => {
  it('acks once, refuses with the policy words, and does not run the listener', async () => {
    const b = bolt();
    let ran = 0;
    await roleMiddleware(deps)('requesters')({
      ack: b.ack,
      respond: b.respond,
      body: { user_id: USERS.viewer },
      next: async () => void ran++,
    });
    expect(b.acks).toHaveLength(1);
    expect(ran).toBe(0);
    expect(b.replies).toEqual([
      {
        response_type: 'ephemeral',
        replace_original: false,
        text: 'Sorry, you are not allowed to request withdrawals. The treasury policy lists who may; ask a treasury admin if you need access.',
      },
    ]);
  });

  it('lets a person with the role through, by user id or by user group, for commands and clicks', async () => {
    for (const body of [{ user_id: USERS.viewer }, { user: { id: USERS.groupMember } }, { user: { id: USERS.erin } }]) {
      const b = bolt();
      let ran = 0;
      await roleMiddleware(deps)('viewers')({ ack: b.ack, respond: b.respond, body, next: async () => void ran++ });
      expect({ acks: b.acks.length, ran, replies: b.replies }).toEqual({ acks: 1, ran: 1, replies: [] });
    }
  });
});

describe('/address listener', () => {
  it('names every problem of the input with the usage, and asks the wallet nothing', async () => {
    const b = bolt();
    await addressCommand(deps)({
      command: command('/address', 'not-an-email DOGE MOON', USERS.viewer),
      respond: b.respond,
      client: b.client,
    });
    expect(b.text()).toContain('“not-an-email” is not an e-mail address');
    expect(b.text()).toContain('unknown currency “DOGE”');
    expect(b.text()).toContain('unknown network “MOON”');
    expect(b.text()).toContain('Usage: `/address <client-email> <currency> <network>`');
    expect(b.calls).toEqual([]);
  });

  it('answers with the address, then sends its QR code to the DM', async () => {
    const b = bolt();
    await addressCommand(deps)({
      command: command('/address', 'unit@client.example USDT BSC', USERS.viewer),
      respond: b.respond,
      client: b.client,
    });
    expect(b.replies[0]!.text).toMatch(/^Deposit address for unit@client\.example \(USDT on BSC\): \S+/);
    expect(b.calls.map((c) => c.method)).toEqual(['conversations.open', 'files.uploadV2']);
    expect(b.calls[1]!.args.channel_id).toBe('D0DIRECT');
    expect(Buffer.isBuffer(b.calls[1]!.args.file)).toBe(true);
  });
});

describe('/withdraw listener', () => {
  it('opens the request form for an empty command, and answers help with the usage', async () => {
    const b = bolt();
    await withdrawCommand(deps)({
      command: command('/withdraw', '  ', USERS.alice),
      respond: b.respond,
      client: b.client,
    });
    expect(b.calls).toHaveLength(1);
    expect(b.calls[0]!.method).toBe('views.open');
    expect(b.calls[0]!.args).toMatchObject({ trigger_id: 'trigger-1', view: { callback_id: VIEWS.request } });
    const h = bolt();
    await withdrawCommand(deps)({
      command: command('/withdraw', 'help', USERS.alice),
      respond: h.respond,
      client: h.client,
    });
    expect(h.text()).toMatch(/^Usage: `\/withdraw` opens a form/);
  });

  it('refuses a one-line request of over 1,000 characters without echoing it', async () => {
    const b = bolt();
    const text = `10 USDT BSC 0xabc a@b.example ${'x'.repeat(1_200)}`;
    await withdrawCommand(deps)({
      command: command('/withdraw', text, USERS.alice),
      respond: b.respond,
      client: b.client,
    });
    expect(b.text()).toContain('That is 1,230 characters; a one-line request takes at most 1000');
    expect(b.text()).not.toContain('xxxxxxxxxx');
    expect(deps.withdrawals.list({ requester: USERS.alice })).toEqual([]);
  });

  it('answers an approval of a request that does not exist with the service refusal', async () => {
    const b = bolt();
    await approve(deps)({ ack: b.ack, respond: b.respond, ...button('no-such-request', USERS.carol) });
    expect(b.acks).toHaveLength(1);
    expect(b.replies).toHaveLength(1);
    expect(b.replies[0]).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(b.text()).toMatch(/^:no_entry: /);
  });

  it('the resolve form: a stale form is named first, then a non-admin is refused next to the field', async () => {
    const view = (metadata: string) => ({
      id: 'V1',
      private_metadata: metadata,
      state: { values: { reason: { value: { type: 'plain_text_input', value: 'checked' } } } },
    });
    const stale = bolt();
    await resolveSubmitted(deps)({
      ack: stale.ack,
      body: { user: { id: USERS.viewer } } as never,
      view: view('{not json') as never,
    });
    expect(stale.acks).toEqual([
      {
        response_action: 'errors',
        errors: { reason: 'This form is out of date; click the button on the card again.' },
      },
    ]);
    const refused = bolt();
    await resolveSubmitted(deps)({
      ack: refused.ack,
      body: { user: { id: USERS.carol } } as never,
      view: view(JSON.stringify({ id: 'x', outcome: 'sent' })) as never,
    });
    expect(refused.acks).toEqual([
      {
        response_action: 'errors',
        errors: { reason: expect.stringContaining('not allowed to use treasury admin commands') },
      },
    ]);
  });
});

describe('/tx listeners', () => {
  it('a Previous/Next button whose value is not ours is called out of date, and the page is kept', async () => {
    const b = bolt();
    await txNav(deps)({ respond: b.respond, action: button('{"f":{"currency":1},"p":0}', USERS.viewer).action });
    expect(b.replies).toEqual([
      { replace_original: false, text: ':warning: That button is out of date; run `/tx` again.' },
    ]);
  });
});

describe('/treasury listener', () => {
  it('acks, then answers help with the text generated from the command table', async () => {
    const b = bolt();
    await treasuryCommand(deps)({
      command: command('/treasury', '', USERS.viewer),
      ack: b.ack,
      respond: b.respond,
      client: b.client,
    });
    expect(b.acks).toHaveLength(1);
    expect(b.replies).toEqual([{ response_type: 'ephemeral', text: helpText() }]);
  });

  it('names the verbs for an unknown one, and never finds a prototype member', async () => {
    const b = bolt();
    await treasuryCommand(deps)({
      command: command('/treasury', 'constructor', USERS.erin),
      ack: b.ack,
      respond: b.respond,
      client: b.client,
    });
    expect(b.text()).toContain('Unknown subcommand “constructor”');
    expect(b.text()).toContain('`webhook register`');
  });
});

describe('App Home listeners', () => {
  it('an approval from the Home tab that the service refuses is shown at the top of the re-published tab', async () => {
    const b = bolt();
    const publish = homePublisher(deps, helpText());
    await homeApprove(deps, publish)({ ack: b.ack, client: b.client, ...button('no-such-request', USERS.carol) });
    expect(b.acks).toHaveLength(1);
    const published = b.calls.filter((c) => c.method === 'views.publish');
    expect(published).toHaveLength(1);
    expect(published[0]!.args.user_id).toBe(USERS.carol);
    const blocks = JSON.stringify((published[0]!.args.view as { blocks: unknown[] }).blocks);
    expect(blocks).toContain(':no_entry: ');
    expect(blocks).toContain('/address <client-email> <currency> <network>');
  });

  it('publishes the Home tab when it is opened, and nothing for the Messages tab', async () => {
    const b = bolt();
    const opened = appHomeOpened(homePublisher(deps, helpText()));
    await opened({
      event: {
        type: 'app_home_opened',
        user: USERS.viewer,
        channel: 'D0HOME',
        tab: 'messages',
        event_ts: '1',
      } as never,
      client: b.client,
    });
    expect(b.calls).toEqual([]);
    await opened({
      event: { type: 'app_home_opened', user: USERS.viewer, channel: 'D0HOME', tab: 'home', event_ts: '2' } as never,
      client: b.client,
    });
    expect(b.calls.map((c) => [c.method, c.args.user_id])).toEqual([['views.publish', USERS.viewer]]);
  });
});
