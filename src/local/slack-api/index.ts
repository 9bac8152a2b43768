/**
 * The Slack Web API of the local workspace, and the recording fake of the tests: one
 * implementation, so what the tests check is what a person sees in the browser.
 * It listens on a loopback port (random unless given). Bolt's WebClient is
 * pointed at it with `clientOptions: { slackApiUrl: fake.url }`; the fake answers the way
 * Slack does (HTTP 200 with `ok: false` for API errors, 429 + Retry-After for rate limits)
 * and keeps a model of what a user would see: channel messages after updates and deletes,
 * ephemerals, uploaded files, modals, and messages posted through response_urls.
 * conversations.history and conversations.replies read that same model back.
 *
 * This file only assembles the parts, one job each: server.ts (HTTP, auth, recording),
 * wire.ts (bodies and answers), failures.ts (failNext and the gate), recording.ts (waitFor),
 * messages.ts (the channel model), chat.ts, history.ts, views.ts, files.ts (upload v2),
 * response-urls.ts, users.ts (auth, users, usergroups, Socket Mode), args.ts (argument checks),
 * state.ts (what is remembered) and types.ts (the public types).
 */
import type { AddressInfo } from 'node:net';
import { messageTs, slackId } from '../slack-ids.js';
import { stripUndefined } from '../../util/strip-undefined.js';
import { chatHandlers } from './chat.js';
import { failNext } from './failures.js';
import { fileHandlers } from './files.js';
import { historyHandlers } from './history.js';
import { dmChannel } from './messages.js';
import { waitFor } from './recording.js';
import { issueResponseUrl, responseMessages, visibleEphemerals } from './response-urls.js';
import { startServer } from './server.js';
import { changed, createState, resetState } from './state.js';
import type { FakeSlack, FakeSlackOptions } from './types.js';
import { identityHandlers } from './users.js';
import { applyViewResponse, closeView, issueTrigger, stackOf, viewHandlers } from './views.js';

export * from './types.js';

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const defaultWait = opts.waitTimeoutMs ?? 3000;
  const s = createState(opts);
  const handlers = {
    ...identityHandlers(s),
    ...chatHandlers(s),
    ...historyHandlers(s),
    ...viewHandlers(s),
    ...fileHandlers(s),
  };
  const server = await startServer(s, handlers);
  const origin = s.origin;

  const fake: FakeSlack = {
    url: `${origin}/api/`,
    origin,
    port: (server.address() as AddressInfo).port,

    calls: (method) => (method ? s.calls.filter((c) => c.method === method) : [...s.calls]),
    waitFor: (method, predicate, timeoutMs = defaultWait) => waitFor(s, method, predicate, timeoutMs),
    failNext: (method, spec = {}) => failNext(s, method, spec),

    channel: (id) => (s.channelStores.get(id)?.messages ?? []).map((m) => ({ ...m })),
    thread: (channel, threadTs) =>
      (s.channelStores.get(channel)?.messages ?? [])
        .filter((m) => m.thread_ts === threadTs && m.ts !== threadTs)
        .map((m) => ({ ...m })),
    channels: () => [...s.channelStores.keys()],
    ephemerals: (channel, user) =>
      s.ephemerals.filter((e) => (!channel || e.channel === channel) && (!user || e.user === user)),
    files: () => [...s.uploads.values()].flatMap((u) => (u.completed ? [u.completed] : [])),
    views: () => [...s.views.values()],
    view: (id) => s.views.get(id) ?? [...s.views.values()].find((v) => v.external_id === id),
    homeTab: (userId) => s.homeTabs.get(userId),
    dmChannel: (userId) => dmChannel(s, userId),

    responseUrl: (o = {}) => issueResponseUrl(s, o),
    get responses() {
      return [...s.responses];
    },
    responseMessages: (urlOrId) => responseMessages(s, urlOrId),

    setUser: (id, user) => void s.users.set(id, user),
    setUsergroup: (id, members) => void s.usergroups.set(id, [...members]),
    attachSocket(source) {
      s.socket = source;
    },

    setGate(g) {
      s.gate = g;
    },

    onChange(listener) {
      s.listeners.add(listener);
      return () => void s.listeners.delete(listener);
    },

    issueTrigger: (user) => issueTrigger(s, user),
    openViews: (user) => stackOf(s, user),

    closeView(id) {
      closeView(s, id);
      changed(s);
    },

    applyViewResponse(user, viewId, response) {
      applyViewResponse(s, user, viewId, response);
      changed(s);
    },

    showEphemeral(channel, user, content, via) {
      s.ephemerals.push({
        channel,
        user,
        message_ts: messageTs(),
        ...stripUndefined({ text: content.text, blocks: content.blocks }),
        via,
      });
      changed(s);
    },

    visibleEphemerals: (user) => visibleEphemerals(s, user),

    file: (id) => s.uploads.get(id)?.completed,

    userUpload(user, name, content) {
      const id = slackId('F');
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const file = {
        id,
        name,
        title: name,
        content: bytes,
        text: bytes.toString('utf8'),
        declaredLength: bytes.length,
      };
      s.uploads.set(id, { id, filename: name, declaredLength: bytes.length, content: bytes, completed: file, user });
      return id;
    },

    reset: () => resetState(s),

    async close() {
      for (const t of s.timers) clearTimeout(t);
      s.timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
