/**
 * The app's listeners, registered as on Bolt (`listeners.action(id, requireRole(…), handler)`)
 * but kept in a table that Bolt sees as one global middleware. Bolt runs every registered
 * listener's matchers for every request it receives, before and around the ack: with the
 * app's two dozen listeners that was about a third of a bare Bolt app's whole cost per
 * request (measured: a bare app given 26 listeners that never match acked a burst of 100
 * commands 30% slower). Here a request costs one lookup by its command name, action id,
 * callback id or event type, whatever the number of listeners.
 *
 * Each entry's functions run as Bolt runs a listener's middleware: in order, each going on
 * with `next()` (once). One entry answers a request: an exact id first, then the patterns in
 * the order registered (Bolt ran every listener that matched; nothing here relies on that). A
 * request no entry matches is left unacknowledged, as before, and guardEvents (./app.ts)
 * acknowledges it at once.
 */
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  Middleware,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewAction,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';

type ViewType = SlackViewAction['type'];

/** An action matched on its action id and its block's id, each exactly or by a RegExp. */
export interface ActionIds {
  action_id: string | RegExp;
  block_id?: string | RegExp;
}

const idMatches = (want: string | RegExp | undefined, id: string) =>
  want === undefined || (typeof want === 'string' ? want === id : want.test(id));

/** A pattern with the g or y flag keeps state between tests: every other click would miss. */
function statelessPattern(p: string | RegExp | undefined): void {
  if (p instanceof RegExp && (p.global || p.sticky))
    throw new Error(`the action pattern ${p} must not have the g or y flag`);
}

export interface Listeners {
  /** Bolt's client, for listeners that post outside a request (the App Home's refresh). */
  readonly client: App['client'];
  command(name: string, ...fns: Middleware<SlackCommandMiddlewareArgs>[]): void;
  /** A block action by its action id (a RegExp: every id it matches), or by action and block id. */
  action<A extends SlackAction = BlockAction>(
    on: string | RegExp | ActionIds,
    ...fns: Middleware<SlackActionMiddlewareArgs<A>>[]
  ): void;
  /** A view by its callback id: its submission, or `{ callback_id, type: 'view_closed' }`. */
  view<V extends SlackViewAction = ViewSubmitAction>(
    on: string | { callback_id: string; type: ViewType },
    ...fns: Middleware<SlackViewMiddlewareArgs<V>>[]
  ): void;
  event<E extends string>(type: E, ...fns: Middleware<SlackEventMiddlewareArgs<E>>[]): void;
}

// The table holds each entry's functions with the arguments of its own kind; the dispatcher
// below only hands a request of that kind to them.
// biome-ignore lint/suspicious/noExplicitAny: the entries' argument types differ by kind, checked at registration
type Chain = readonly Middleware<any>[];

/** Runs an entry's functions in order, each going on with `next()`, as Bolt runs a listener's middleware. */
async function run(chain: Chain, args: AllMiddlewareArgs): Promise<void> {
  const at = async (i: number): Promise<void> => {
    const fn = chain[i];
    let called = false;
    const next = () => {
      // As Bolt: going on twice would run the rest of the chain (the listener) twice.
      if (called) throw new Error('next() called multiple times');
      called = true;
      return at(i + 1);
    };
    if (fn) await fn({ ...args, next });
  };
  await at(0);
}

export function listenerTable(app: App): Listeners {
  const commands = new Map<string, Chain>();
  const actions = new Map<string, Chain>();
  // Matched in the order registered, after the exact ids.
  const actionPatterns: Array<{ ids: ActionIds; chain: Chain }> = [];
  const views = new Map<string, Chain>();
  const viewKey = (type: ViewType, callbackId: string) => `${type}\u0000${callbackId}`;

  const once = (map: Map<string, Chain>, key: string, what: string, chain: Chain) => {
    if (map.has(key)) throw new Error(`${what} has two listeners`);
    map.set(key, chain);
  };

  const events = new Map<string, Chain>();

  /** The entry of a request, by what Bolt matches listeners on; undefined: none. */
  const entryOf = (body: Record<string, unknown>, payload: Record<string, unknown>): Chain | undefined => {
    if (typeof body.command === 'string') return commands.get(body.command);
    switch (body.type) {
      case 'block_actions': {
        // Bolt's payload of a block action is its (first) action.
        const action_id = String(payload.action_id ?? '');
        const block_id = String(payload.block_id ?? '');
        return (
          actions.get(action_id) ??
          actionPatterns.find((p) => idMatches(p.ids.action_id, action_id) && idMatches(p.ids.block_id, block_id))
            ?.chain
        );
      }
      case 'view_submission':
      case 'view_closed':
        return views.get(viewKey(body.type, String(payload.callback_id ?? '')));
      case 'event_callback':
        return events.get(String(payload.type ?? ''));
      default:
        return undefined;
    }
  };

  // One global middleware after Bolt's own (ignoreSelf): a request with an entry goes no further,
  // so Bolt has no listener chains to run; one without goes on to none, and is acknowledged by
  // guardEvents.
  app.use(async (args) => {
    const chain = entryOf(args.body as Record<string, unknown>, args.payload as unknown as Record<string, unknown>);
    if (chain) await run(chain, args);
    else await args.next();
  });

  return {
    client: app.client,
    command: (name, ...fns) => once(commands, name, `the command ${name}`, fns),
    action: (on, ...fns) => {
      if (typeof on === 'string') once(actions, on, `the action ${on}`, fns);
      else {
        const ids = on instanceof RegExp ? { action_id: on } : on;
        statelessPattern(ids.action_id);
        statelessPattern(ids.block_id);
        actionPatterns.push({ ids, chain: fns });
      }
    },
    view: (on, ...fns) => {
      const { callback_id, type } = typeof on === 'string' ? { callback_id: on, type: 'view_submission' as const } : on;
      once(views, viewKey(type, callback_id), `the view ${callback_id} (${type})`, fns);
    },
    event: (type, ...fns) => once(events, type, `the event ${type}`, fns),
  };
}
