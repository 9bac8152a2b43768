/**
 * The local workspace: a web page that stands in for a Slack workspace when no Slack
 * credentials are set. Its Web API (slack-api.ts, the same implementation the tests record
 * with) answers the app on a loopback port given to the app as SLACK_API_URL; what people do
 * on the page is sent to the app's /slack/events exactly as Slack sends it, signed with a
 * signing secret generated at start. The page itself is served under the app's own HTTP
 * server (`/` and `/local/*`) and kept live with server-sent events.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Route } from '../http/server.js';
import { sendJson } from '../http/server.js';
import { foreignRequest } from '../http/same-page.js';
import type { Logger } from '../log.js';
import type { Policy } from '../policy/schema.js';
import { channelDirectory, peopleOf, type Person } from './directory.js';
import {
  event,
  messageAction,
  sendSigned,
  slashCommand,
  viewAction,
  viewClosed,
  viewSubmission,
  type Actor,
  type ClickedAction,
  type Json,
  type SignedBody,
  type SlackReply,
} from './requests.js';
import { startFakeSlack, type FakeMessage, type FakeSlack, type FakeView } from './slack-api.js';

export interface LocalWorkspaceOptions {
  policy: Policy;
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

const MAX_BODY = 256 * 1024;
const STATIC = new URL('./static/', import.meta.url);

const staticFile = (name: string) => readFileSync(new URL(name, STATIC));

const userId = z.string().regex(/^[UW][A-Z0-9]{2,30}$/, 'a Slack user id such as U0ALICE');
const channelIdSchema = z.string().regex(/^[CDG][A-Z0-9]{2,30}$/, 'a channel id such as C0APPROVALS');
const actionSchema = z.object({
  action_id: z.string().min(1).max(255),
  block_id: z.string().min(1).max(255),
  type: z.string().min(1).max(50),
  value: z.string().max(2000).optional(),
  text: z.string().max(200).optional(),
  selected_option: z
    .object({ value: z.string().max(150), text: z.object({ type: z.string(), text: z.string() }).passthrough() })
    .passthrough()
    .optional(),
});
const valuesSchema = z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))).default({});

const commandBody = z.object({
  user: userId,
  channel: channelIdSchema,
  text: z.string().trim().min(1, 'type a command such as /tx').max(4000),
});
const actionBody = z.discriminatedUnion('source', [
  z.object({
    source: z.literal('message'),
    user: userId,
    channel: channelIdSchema,
    ts: z.string().max(40),
    action: actionSchema,
  }),
  z.object({
    source: z.literal('ephemeral'),
    user: userId,
    channel: channelIdSchema,
    ts: z.string().max(40),
    action: actionSchema,
  }),
  z.object({
    source: z.literal('view'),
    user: userId,
    viewId: z.string().max(40),
    action: actionSchema,
    values: valuesSchema,
  }),
  z.object({ source: z.literal('home'), user: userId, action: actionSchema }),
]);
const submitBody = z.object({ user: userId, viewId: z.string().max(40), values: valuesSchema });
const closeBody = z.object({ user: userId, viewId: z.string().max(40) });
const homeBody = z.object({ user: userId });
const depositBody = z.object({
  to: z.string().trim().min(3, 'a client e-mail or a generated address').max(200),
  amount: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'a positive decimal amount such as 250.50'),
  currency: z.string().trim().min(1).max(20),
  network: z.string().trim().min(1).max(20),
});

class BadRequest extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new BadRequest('the request is too large');
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new BadRequest('the request is not JSON');
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new BadRequest(r.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; '));
  return r.data;
}

export async function startLocalWorkspace(o: LocalWorkspaceOptions): Promise<LocalWorkspace> {
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  const signingSecret = randomBytes(24).toString('hex');
  const api = await startFakeSlack({ tokens: [botToken], waitTimeoutMs: 10_000 });
  // The people of the policy in force, read again whenever it changes (a governed change
  // applies while the app runs): someone added appears on the page, someone removed leaves it.
  let known: { policy: Policy; people: Person[] } | undefined;
  const people = (): Person[] => {
    const policy = o.policy;
    if (known?.policy !== policy) {
      known = { policy, people: peopleOf(policy) };
      for (const p of known.people) api.setUser(p.id, { name: p.handle, real_name: p.name });
    }
    return known.people;
  };
  people();
  const log = o.logger.child({ component: 'local-workspace' });
  let commands = new Set<string>();
  /** Field errors the app returned for a modal, shown until the next submission. */
  const viewErrors = new Map<string, Record<string, string>>();

  const page = { html: staticFile('index.html'), js: staticFile('app.js'), css: staticFile('style.css') };

  const personOf = (id: string): Actor => {
    const p = people().find((x) => x.id === id);
    return { id, name: p?.handle ?? id.toLowerCase() };
  };
  const directory = () => channelDirectory(o.policy, api.channels());
  const channelName = (id: string) => directory().find((c) => c.id === id)?.name ?? id;
  const send = (b: SignedBody) => sendSigned(o.eventsUrl(), signingSecret, b);

  // ---------- live updates ----------
  const streams = new Set<ServerResponse>();
  let pending: NodeJS.Timeout | undefined;
  const unsubscribe = api.onChange(() => {
    // Many API calls arrive together (a card and its thread): one nudge for all of them.
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      for (const s of streams) s.write('event: change\ndata: {}\n\n');
    }, 30);
  });
  const keepAlive = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  // ---------- what one person sees ----------
  function messageView(m: FakeMessage): Json {
    return {
      ts: m.ts,
      text: m.text,
      blocks: m.blocks,
      attachments: m.attachments,
      subtype: m.subtype,
      edited: Boolean(m.edited),
      thread_ts: m.thread_ts,
      files: (m.files ?? []).map((f) => {
        const file = api.file(f.id);
        return {
          id: f.id,
          name: f.name,
          title: f.title,
          image: /\.(png|jpe?g|gif)$/i.test(f.name),
          size: file?.content.length ?? 0,
        };
      }),
    };
  }

  function stateFor(user: string): Json {
    const ephemerals = api.visibleEphemerals(user);
    const dm = api.dmChannel(user);
    const channels = [...directory(), { id: dm, name: 'Treasury (app)', kind: 'dm' as const }].map((c) => {
      const all = api.channel(c.id);
      const top = all.filter((m) => !m.thread_ts || m.thread_ts === m.ts);
      return {
        ...c,
        messages: top.map((m) => ({
          ...messageView(m),
          replies: all.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts).map(messageView),
        })),
        ephemerals: ephemerals
          .filter((e) => e.channel === c.id)
          .map((e) => ({ ts: e.ts, text: e.text, blocks: e.blocks, attachments: e.attachments, via: e.via })),
      };
    });
    const modals = api.openViews(user).map((v) => ({ ...v, errors: viewErrors.get(v.id) ?? {} }));
    return {
      me: user,
      people: people(),
      channels,
      home: api.homeTab(user) ?? null,
      modals,
      sandbox: Boolean(o.sandboxUrl),
      commands: [...commands],
    };
  }

  // ---------- what one person does ----------
  async function runCommand(b: z.infer<typeof commandBody>): Promise<Json> {
    const command = b.text.split(/\s+/)[0] ?? '';
    const text = b.text.slice(command.length).trim();
    if (!command.startsWith('/') || !commands.has(command)) {
      api.showEphemeral(
        b.channel,
        b.user,
        {
          text: `:warning: \`${command}\` is not a valid command. Try ${[...commands].map((c) => `\`${c}\``).join(', ')}.`,
        },
        'workspace',
      );
      return { ok: false };
    }
    const responseUrl = api.responseUrl({ channel: b.channel, user: b.user });
    const reply = await send(
      slashCommand({
        actor: personOf(b.user),
        command,
        text,
        channelId: b.channel,
        channelName: channelName(b.channel),
        responseUrl,
        triggerId: api.issueTrigger(b.user),
      }),
    );
    if (reply.status === 200 && reply.json?.response_type === 'in_channel') {
      // Slack posts an in_channel ack body in the channel, as a response_url post would.
      await fetch(responseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(reply.json),
      });
    } else ackAsEphemeral(b.channel, b.user, command, reply);
    return { ok: reply.status === 200 };
  }

  // Slack shows a slash command's ack body to the person who typed it, and a failure as Slack's own notice.
  function ackAsEphemeral(
    channel: string,
    user: string,
    what: string,
    reply: { status: number; json: Json | undefined; text: string },
  ): void {
    if (reply.status !== 200) {
      api.showEphemeral(
        channel,
        user,
        { text: `:warning: ${what} failed with the error "dispatch_failed" (HTTP ${reply.status})` },
        'workspace',
      );
      return;
    }
    const j = reply.json;
    if (j && (typeof j.text === 'string' || Array.isArray(j.blocks))) {
      api.showEphemeral(
        channel,
        user,
        {
          text: typeof j.text === 'string' ? j.text : undefined,
          blocks: Array.isArray(j.blocks) ? j.blocks : undefined,
        },
        'ack',
      );
    } else if (!j && reply.text.trim()) api.showEphemeral(channel, user, { text: reply.text }, 'ack');
  }

  async function runAction(b: z.infer<typeof actionBody>): Promise<Json> {
    const actor = personOf(b.user);
    const action = b.action as ClickedAction;
    const triggerId = api.issueTrigger(b.user);
    let reply: SlackReply;
    if (b.source === 'message' || b.source === 'ephemeral') {
      let message: { ts: string; text?: string; blocks?: unknown[]; thread_ts?: string } | undefined;
      let responseUrl: string;
      if (b.source === 'message') {
        message = api.channel(b.channel).find((m) => m.ts === b.ts);
        responseUrl = api.responseUrl({ channel: b.channel, user: b.user, messageTs: b.ts });
      } else {
        const e = api.visibleEphemerals(b.user).find((x) => x.ts === b.ts && x.channel === b.channel);
        message = e ? { ts: e.ts, text: e.text, blocks: e.blocks } : undefined;
        responseUrl = api.responseUrl({
          channel: b.channel,
          user: b.user,
          ...(e?.responseUrl ? { original: { responseUrl: e.responseUrl, ts: e.ts } } : {}),
        });
      }
      if (!message) throw new BadRequest('that message is gone');
      reply = await send(
        messageAction({
          actor,
          action,
          channelId: b.channel,
          channelName: channelName(b.channel),
          message,
          ephemeral: b.source === 'ephemeral',
          responseUrl,
          triggerId,
        }),
      );
    } else if (b.source === 'view') {
      const view = api.view(b.viewId);
      if (!view) throw new BadRequest('that form is closed');
      reply = await send(viewAction({ actor, action, view: view as unknown as Json, values: b.values, triggerId }));
    } else {
      const home = api.homeTab(b.user);
      if (!home) throw new BadRequest('open the Home tab first');
      reply = await send(viewAction({ actor, action, view: home as unknown as Json, values: {}, triggerId }));
    }
    if (reply.status !== 200) log.warn({ status: reply.status }, 'the app refused an interaction');
    return { ok: reply.status === 200 };
  }

  async function submitView(b: z.infer<typeof submitBody>): Promise<Json> {
    const view = api.view(b.viewId);
    if (!view) throw new BadRequest('that form is closed');
    const reply = await send(
      viewSubmission({
        actor: personOf(b.user),
        view: view as unknown as Json,
        values: b.values,
        triggerId: api.issueTrigger(b.user),
      }),
    );
    if (reply.status !== 200) {
      viewErrors.set(view.id, { _: 'We had some trouble connecting. Try again?' });
      return { ok: false };
    }
    const ack = reply.json ?? {};
    if (ack.response_action === 'errors') {
      const errors = (ack.errors ?? {}) as Record<string, string>;
      viewErrors.set(view.id, errors);
      api.applyViewResponse(b.user, view.id, ack);
      return { ok: false, errors };
    }
    viewErrors.delete(view.id);
    try {
      api.applyViewResponse(b.user, view.id, ack);
    } catch (err) {
      log.warn({ err }, 'the app answered a submission with a view Slack would refuse');
      viewErrors.set(view.id, { _: 'The app answered with an invalid view.' });
    }
    return { ok: true };
  }

  async function deposit(b: z.infer<typeof depositBody>): Promise<Json> {
    if (!o.sandboxUrl) throw new BadRequest('deposits can be simulated only with the embedded sandbox');
    const res = await fetch(`${o.sandboxUrl}/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(b),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json().catch(() => ({}))) as Json;
    if (!res.ok) {
      const msg = (body.message ??
        body.error ??
        (body as { data?: { message?: string } }).data?.message ??
        `HTTP ${res.status}`) as string;
      throw new BadRequest(`the sandbox refused the deposit: ${String(msg)}`);
    }
    return { ok: true };
  }

  const post =
    <T>(schema: z.ZodType<T>, run: (b: T) => Promise<Json>) =>
    async (req: IncomingMessage, res: ServerResponse) => {
      const foreign = foreignRequest(req, true);
      if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
      try {
        sendJson(res, 200, await run(parse(schema, await readJson(req))));
      } catch (err) {
        if (err instanceof BadRequest) return sendJson(res, 400, { ok: false, error: err.message });
        log.warn({ err }, 'a workspace action failed');
        sendJson(res, 502, { ok: false, error: 'the app did not answer; see the log' });
      }
    };

  const serve = (type: string, body: () => Buffer) => (_req: IncomingMessage, res: ServerResponse) => {
    const b = body();
    res.writeHead(200, {
      'content-type': type,
      'content-length': b.length,
      'cache-control': 'no-store',
      // The page runs only its own script; message text can never become markup or script.
      'content-security-policy':
        "default-src 'self'; img-src * data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    });
    res.end(b);
  };

  const routes: Route[] = [
    { method: 'GET', path: '/', handler: serve('text/html; charset=utf-8', () => page.html) },
    { method: 'GET', path: '/local/app.js', handler: serve('text/javascript; charset=utf-8', () => page.js) },
    { method: 'GET', path: '/local/style.css', handler: serve('text/css; charset=utf-8', () => page.css) },
    {
      method: 'GET',
      path: '/local/state',
      handler: (req, res) => {
        const foreign = foreignRequest(req, false);
        if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
        const u = new URL(req.url ?? '/', 'http://local').searchParams.get('user') ?? '';
        const r = userId.safeParse(u);
        if (!r.success) return sendJson(res, 400, { ok: false, error: 'user: a Slack user id such as U0ALICE' });
        sendJson(res, 200, stateFor(r.data));
      },
    },
    {
      method: 'GET',
      path: '/local/events',
      handler: (req, res) => {
        const foreign = foreignRequest(req, false);
        if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        res.write('retry: 1000\n\n');
        streams.add(res);
        req.on('close', () => streams.delete(res));
      },
    },
    {
      method: 'GET',
      path: '/local/files/:id',
      handler: (req, res, params) => {
        const foreign = foreignRequest(req, false);
        if (foreign) return sendJson(res, 403, { ok: false, error: foreign });
        const f = api.file(params.id ?? '');
        if (!f) return sendJson(res, 404, { ok: false, error: 'no such file' });
        const image = /\.png$/i.test(f.name);
        const safeName = f.name.replace(/[^A-Za-z0-9._-]/g, '_');
        res.writeHead(200, {
          'content-type': image
            ? 'image/png'
            : /\.csv$/i.test(f.name)
              ? 'text/csv; charset=utf-8'
              : 'application/octet-stream',
          'content-length': f.content.length,
          'content-disposition': `${image ? 'inline' : 'attachment'}; filename="${safeName}"`,
          'x-content-type-options': 'nosniff',
        });
        res.end(f.content);
      },
    },
    { method: 'POST', path: '/local/command', handler: post(commandBody, runCommand) },
    { method: 'POST', path: '/local/action', handler: post(actionBody, runAction) },
    { method: 'POST', path: '/local/submit', handler: post(submitBody, submitView) },
    {
      method: 'POST',
      path: '/local/close',
      handler: post(closeBody, async (b) => {
        const v: FakeView | undefined = api.view(b.viewId);
        if (!v || !api.openViews(b.user).some((x) => x.id === v.id)) return { ok: true };
        api.closeView(v.id);
        viewErrors.delete(v.id);
        if (v.notify_on_close === true) await send(viewClosed({ actor: personOf(b.user), view: v as unknown as Json }));
        return { ok: true };
      }),
    },
    {
      method: 'POST',
      path: '/local/home',
      handler: post(homeBody, async (b) => {
        const reply = await send(
          event({ type: 'app_home_opened', user: b.user, channel: api.dmChannel(b.user), tab: 'home' }),
        );
        return { ok: reply.status === 200 };
      }),
    },
    { method: 'POST', path: '/local/deposit', handler: post(depositBody, deposit) },
  ];

  return {
    apiUrl: api.url,
    botToken,
    signingSecret,
    api,
    get people() {
      return people();
    },
    routes,
    setCommands(names) {
      commands = new Set(names);
    },
    async close() {
      unsubscribe();
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
      for (const s of streams) s.end();
      streams.clear();
      await api.close();
    },
  };
}
