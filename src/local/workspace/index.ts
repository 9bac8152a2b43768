/**
 * The local workspace: a web page that stands in for a Slack workspace when no Slack
 * credentials are set. Its Web API (../slack-api.ts, the same implementation the tests record
 * with) answers the app on a loopback port given to the app as SLACK_API_URL; what people do
 * on the page is sent to the app's /slack/events exactly as Slack sends it, signed with a
 * signing secret generated at start. The page itself is served under the app's own HTTP
 * server (`/` and `/local/*`) and kept live with server-sent events.
 *
 * This file only assembles the parts, one job each: schemas.ts (what the page may send),
 * guard.ts (only the page itself may drive it), state.ts (people, commands, modal errors),
 * view.ts (what one person sees), actions.ts (what one person does), decide.ts (the pure
 * decisions behind both), live.ts (server-sent events), page.ts (the page's files from
 * ../static/) and routes.ts (the HTTP routes).
 */
import { randomBytes } from 'node:crypto';
import type { Route } from '../../http/server.js';
import type { Logger } from '../../log.js';
import { channelDirectory, type Person } from '../directory.js';
import { sendSigned, type Actor } from '../requests.js';
import { startFakeSlack, type FakeSlack } from '../slack-api.js';
import type { ActionDeps } from './actions.js';
import { startLiveUpdates } from './live.js';
import { workspaceRoutes } from './routes.js';
import { commandList, peopleInForce, type ViewErrors } from './state.js';
import type { Sight } from './view.js';
import type { PolicySource } from '../../policy/source.js';

export { foreignRequest } from '../../http/same-page.js';

export interface LocalWorkspaceOptions {
  policy: PolicySource;
  logger: Logger;
  /** The embedded sandbox, for the "simulate a deposit" button. */
  sandboxUrl?: string;
  /** Where the app listens for Slack's requests; known once the app's server is up. */
  eventsUrl: () => string;
}

export interface LocalWorkspace {
  /** For the app's WebClient: SLACK_API_URL. */
  apiUrl: string;
  botToken: string;
  signingSecret: string;
  api: FakeSlack;
  /** The people of the policy in force (read again when it changes). */
  readonly people: Person[];
  /** Mounted on the app's HTTP server. */
  routes: Route[];
  /** The slash commands the app registered (others are answered as Slack does: not found). */
  setCommands(names: string[]): void;
  close(): Promise<void>;
}

export async function startLocalWorkspace(o: LocalWorkspaceOptions): Promise<LocalWorkspace> {
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  const signingSecret = randomBytes(24).toString('hex');
  const api = await startFakeSlack({ tokens: [botToken], waitTimeoutMs: 10_000 });
  const people = peopleInForce(o.policy, api);
  people();
  const log = o.logger.child({ component: 'local-workspace' });
  const commands = commandList();
  const viewErrors: ViewErrors = new Map();
  const directory = () => channelDirectory(o.policy.current(), api.channels());

  const actor = (id: string): Actor => {
    const p = people().find((x) => x.id === id);
    return { id, name: p?.handle ?? id.toLowerCase() };
  };
  const actions: ActionDeps = {
    api,
    send: (b) => sendSigned(o.eventsUrl(), signingSecret, b),
    actor,
    channelName: (id) => directory().find((c) => c.id === id)?.name ?? id,
    commands,
    viewErrors,
    log,
    sandboxUrl: o.sandboxUrl,
  };
  const sight: Sight = {
    api,
    directory,
    people,
    viewErrors,
    commands: () => commands.names(),
    sandbox: Boolean(o.sandboxUrl),
  };
  const live = startLiveUpdates(api);

  return {
    apiUrl: api.url,
    botToken,
    signingSecret,
    api,
    get people() {
      return people();
    },
    routes: workspaceRoutes({ sight, live, actions, log }),
    setCommands: (names) => commands.replace(names),
    async close() {
      live.close();
      await api.close();
    },
  };
}
