/**
 * The Slack side: which Slack the app talks to (a real workspace, or in local mode the local
 * workspace, which stands in for Slack with made-up credentials while the app runs in HTTP
 * mode against it), the outbox's own Web API client, and the Bolt app with the commands.
 */
import type { AckQueue } from '../slack/acks-first.js';
import { WebClient } from '@slack/web-api';
import { listenerTable } from '../slack/listeners.js';
import { registerCommands } from '../../commands/index.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import { startLocalWorkspace, type LocalWorkspace } from '../local/workspace.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/registry.js';
import { countingFetch } from '../metrics/sources.js';
import { limitedFetch } from '../slack/limits.js';
import type { GroupResolver } from '../policy/people.js';
import type { PolicySource } from '../policy/source.js';
import { secrets } from '../secrets.js';
import { slackGroups } from '../slack/access.js';
import { boltLogger } from '../slack/bolt-logger.js';
import { slackPeople } from '../slack/people.js';
import { createSlackApp, webClientOptions, type SlackApp } from '../slack/app.js';
import type { CleanupStack } from './cleanup.js';

export type SlackConfig = Config['slack'];

export interface SlackTarget {
  /** The Slack the app talks to: in local mode, the local workspace's credentials and Web API. */
  slackConfig: SlackConfig;
  local: LocalWorkspace | undefined;
}

export async function buildSlackTarget(
  o: { config: Config; policy: PolicySource; logger: Logger; sandboxUrl: string | undefined; eventsUrl: () => string },
  cleanup: CleanupStack,
): Promise<SlackTarget> {
  if (o.config.slack.mode !== 'local') return { slackConfig: o.config.slack, local: undefined };
  const local = await startLocalWorkspace({
    policy: o.policy,
    logger: o.logger,
    sandboxUrl: o.sandboxUrl,
    eventsUrl: o.eventsUrl,
  });
  cleanup.push(() => local.close());
  secrets.add(local.botToken, local.signingSecret);
  return {
    slackConfig: {
      ...o.config.slack,
      mode: 'http',
      botToken: local.botToken,
      signingSecret: local.signingSecret,
      apiUrl: local.apiUrl,
    },
    local,
  };
}

const NO_GROUPS: GroupResolver = { membersOf: async () => [] };

/**
 * The outbox gets its own client: no retries inside it (the outbox retries, and knows when a
 * retry could double a post), and 429s come back to it instead of sleeping. User-group
 * membership (policy entries S...) comes from Slack through it; without Slack, only user ids count.
 */
export function outboxSlackClient(o: {
  slackConfig: SlackConfig;
  localMode: boolean;
  logger: Logger;
  now: () => number;
  metrics?: Metrics;
  /** With PostgreSQL: throws when this replica's lead is not freshly confirmed; no call goes out then. */
  lease?: () => void;
}): { client: WebClient; groups: GroupResolver } {
  // Every call the app makes on its own (posts, edits, uploads, look-ups) is counted, under Slack's limits.
  const limited = limitedFetch(o.metrics ? countingFetch(o.metrics, globalThis.fetch) : globalThis.fetch);
  const client = new WebClient(o.slackConfig.botToken, {
    ...webClientOptions(o.slackConfig.apiUrl),
    // The lease is checked at the moment each call goes out, after any wait in the outbox or the client's queue.
    fetch: o.lease ? leaseFetch(o.lease, limited) : limited,
    retryConfig: { retries: 0 },
    logger: boltLogger(o.logger.child({ component: 'outbox-web' })),
  });
  return { client, groups: o.localMode ? NO_GROUPS : slackGroups(client, o.logger, o.now) };
}

/** The Bolt app with every command registered; none without Slack credentials. Started later, with the HTTP server up. */
export function buildSlackApp(o: {
  target: SlackTarget;
  deps: Deps;
  groups: GroupResolver;
  /** With PostgreSQL: Bolt's own client (respond(), views, uploads) posts nothing once this replica stops leading. */
  lease?: () => void;
  /** The app's ack queue (src/app/work-order.ts), shared with the outbox. */
  acks?: AckQueue;
}): SlackApp | undefined {
  const { slackConfig, local } = o.target;
  if (slackConfig.mode === 'local') return undefined;
  const slack = createSlackApp({
    mode: slackConfig.mode,
    botToken: slackConfig.botToken!,
    signingSecret: slackConfig.signingSecret!,
    appToken: slackConfig.appToken,
    apiUrl: slackConfig.apiUrl,
    logger: o.deps.logger,
    ...(o.acks ? { acks: o.acks } : {}),
    ...(o.lease ? { wrapFetch: (inner: typeof globalThis.fetch) => leaseFetch(o.lease!, inner) } : {}),
  });
  // A plain spread: every part in deps reads what changes (the policy in force) at the moment of use.
  const commandDeps: CommandDeps = {
    ...o.deps,
    groups: o.groups,
    people: slackPeople(slack.app.client, o.deps.logger),
  };
  // Registered whether or not there is a local workspace to tell (not inside `local?.…`, which would skip it).
  const names = registerCommands(listenerTable(slack.app), commandDeps);
  local?.setCommands(names);
  return slack;
}

/** A fetch that asks the lease first: a replica that no longer leads posts nothing. */
export function leaseFetch(lease: () => void, inner: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    try {
      lease();
    } catch (err) {
      return Promise.reject(err);
    }
    return inner(input, init);
  };
}
