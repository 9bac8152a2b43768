/**
 * The listener table (src/slack/listeners.ts): Bolt sees one listener per kind, and each
 * request reaches exactly the entry registered for its command, action or view, with its
 * middleware run in order as Bolt would. Driven through a real Bolt App's processEvent.
 */
import { App, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { listenerTable } from '../../src/slack/listeners.js';

const receiver: Receiver = { init: () => undefined, start: async () => undefined, stop: async () => undefined };

function boltApp(): App {
  // An authorize of its own: a bare token would make Bolt call auth.test on the first request.
  return new App({ receiver, authorize: async () => ({ botToken: 'xoxb-test', botId: 'B0TEST', botUserId: 'U0BOT' }) });
}

async function deliver(app: App, body: Record<string, unknown>): Promise<boolean> {
  let acked = false;
  const event: ReceiverEvent = {
    body: { team: { id: 'T0TEST' }, user: { id: 'U0TEST' }, ...body },
    ack: async () => {
      acked = true;
    },
  };
  await app.processEvent(event);
  return acked;
}

const action = (action_id: string, block_id = 'b0') => ({
  type: 'block_actions',
  actions: [{ type: 'button', action_id, block_id, action_ts: '1' }],
});
const view = (type: 'view_submission' | 'view_closed', callback_id: string) => ({
  type,
  view: { id: 'V0', callback_id, type: 'modal', state: { values: {} } },
});

describe('the listener table', () => {
  it('routes each request to its own entry only, running its middleware in order', async () => {
    const app = boltApp();
    const table = listenerTable(app);
    const seen: string[] = [];
    const note =
      (what: string) =>
      async ({ ack, next }: { ack: () => Promise<void>; next: () => Promise<void> }) => {
        seen.push(what);
        await ack();
        await next();
      };
    table.command('/one', note('one:first'), note('one:second'));
    table.command('/two', note('two'));
    table.action('approve', note('approve'));
    table.action(/^(prev|next)$/, note('nav'));
    table.action({ action_id: 'value', block_id: /^amount$/ }, note('preview'));
    table.view('form', note('form submitted'));
    table.view({ callback_id: 'form', type: 'view_closed' }, note('form closed'));
    // Bolt acknowledges events itself: their listeners get no ack.
    table.event('app_home_opened', async () => void seen.push('home'));

    expect(await deliver(app, { command: '/one', text: '', user_id: 'U0TEST', team_id: 'T0TEST' })).toBe(true);
    expect(await deliver(app, action('approve'))).toBe(true);
    expect(await deliver(app, action('next'))).toBe(true);
    expect(await deliver(app, action('value', 'amount'))).toBe(true);
    expect(await deliver(app, view('view_submission', 'form'))).toBe(true);
    expect(await deliver(app, view('view_closed', 'form'))).toBe(true);
    const home = {
      type: 'event_callback',
      team_id: 'T0TEST',
      event: { type: 'app_home_opened', user: 'U0TEST', tab: 'home' },
    };
    await deliver(app, home);
    expect(seen).toEqual([
      'one:first',
      'one:second',
      'approve',
      'nav',
      'preview',
      'form submitted',
      'form closed',
      'home',
    ]);

    // Nothing registered for these: nobody acknowledges them here (guardEvents does, in the app).
    seen.length = 0;
    expect(await deliver(app, { command: '/three', text: '', user_id: 'U0TEST', team_id: 'T0TEST' })).toBe(false);
    expect(await deliver(app, action('value', 'currency'))).toBe(false);
    expect(await deliver(app, action('unknown'))).toBe(false);
    expect(await deliver(app, view('view_submission', 'other'))).toBe(false);
    const other = {
      type: 'event_callback',
      team_id: 'T0TEST',
      event: { type: 'member_joined_channel', user: 'U0TEST' },
    };
    await deliver(app, other);
    expect(seen).toEqual([]);
  });

  it('a middleware that does not go on stops the entry there', async () => {
    const app = boltApp();
    const table = listenerTable(app);
    const seen: string[] = [];
    table.action(
      'approve',
      async ({ ack }) => {
        seen.push('refused');
        await ack();
      },
      async () => {
        seen.push('listener');
      },
    );
    await deliver(app, action('approve'));
    expect(seen).toEqual(['refused']);
  });

  it('a middleware going on twice is an error, as in Bolt: the listener never runs twice', async () => {
    const app = boltApp();
    const errors: unknown[] = [];
    app.error(async (err) => void errors.push(err));
    const table = listenerTable(app);
    let runs = 0;
    table.action(
      'approve',
      async ({ ack, next }) => {
        await ack();
        await next();
        await next();
      },
      async () => {
        runs++;
      },
    );
    await deliver(app, action('approve')).catch((err: unknown) => errors.push(err));
    expect(runs).toBe(1);
    expect(String(errors[0])).toMatch(/next\(\) called multiple times/);
  });

  it('refuses an action pattern that keeps state between matches (the g or y flag)', () => {
    const table = listenerTable(boltApp());
    const noop = async () => undefined;
    expect(() => table.action(/^(prev|next)$/g, noop)).toThrow(/must not have the g or y flag/);
    expect(() => table.action({ action_id: 'value', block_id: /amount/y }, noop)).toThrow(/g or y flag/);
  });

  it('refuses a second listener for the same command, action or view', () => {
    const table = listenerTable(boltApp());
    const noop = async () => undefined;
    table.command('/one', noop);
    table.action('approve', noop);
    table.view('form', noop);
    expect(() => table.command('/one', noop)).toThrow(/the command \/one has two listeners/);
    expect(() => table.action('approve', noop)).toThrow(/the action approve has two listeners/);
    expect(() => table.view({ callback_id: 'form', type: 'view_submission' }, noop)).toThrow(/two listeners/);
    table.view({ callback_id: 'form', type: 'view_closed' }, noop);
  });
});
