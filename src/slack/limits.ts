/**
 * Slack's size limits, enforced in one place for everything the app sends: Web API calls
 * that carry a message or a view (through limitedWebClient) and response_url posts
 * (through limitedRespond). Slack rejects a message that breaks one of these
 * (invalid_blocks, msg_too_long), and then the person sees nothing at all; a message cut
 * with "…" and "and N more" still tells them something true.
 *
 * Numbers from Slack's Block Kit reference (docs.slack.dev/reference/block-kit):
 * sections, fields, headers, buttons, options, inputs, modals; chat.postMessage for text.
 * Renderers should stay well inside them (src/slack/blocks.ts); this is the backstop.
 */

export const SLACK_LIMITS = {
  messageText: 40_000,
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3_000,
  fields: 10,
  fieldText: 2_000,
  headerText: 150,
  contextElements: 10,
  contextText: 3_000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2_000,
  url: 3_000,
  id: 255,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3_000,
  optionText: 75,
  optionValue: 150,
  options: 100,
  inputLabel: 2_000,
  hint: 2_000,
  placeholder: 150,
  callbackId: 255,
} as const;

/** How long an echo of user input may be in a reply: enough to recognise it, never a wall. */
export const ECHO_MAX = 60;

export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Do not split a surrogate pair: an unpaired half makes the whole JSON body invalid for some parsers.
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, Math.max(end, 0))}…`;
}

/** User input quoted back: one line, mrkdwn control characters escaped, short. */
export function echo(text: string, max = ECHO_MAX): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const oneLine = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/`/g, "'");
  return cut(oneLine, max).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function textObj(t: unknown, max: number): unknown {
  if (!isObj(t) || typeof t.text !== 'string' || t.text.length <= max) return t;
  return { ...t, text: cut(t.text, max) };
}

function str(v: unknown, max: number): unknown {
  return typeof v === 'string' ? cut(v, max) : v;
}

function more(n: number): string {
  return `…and ${n} more`;
}

function option(o: unknown): unknown {
  if (!isObj(o)) return o;
  return {
    ...o,
    text: textObj(o.text, SLACK_LIMITS.optionText),
    value: str(o.value, SLACK_LIMITS.optionValue),
    ...(o.description ? { description: textObj(o.description, SLACK_LIMITS.optionText) } : {}),
  };
}

function options(list: unknown): unknown {
  return Array.isArray(list) ? list.slice(0, SLACK_LIMITS.options).map(option) : list;
}

function element(e: unknown): unknown {
  if (!isObj(e)) return e;
  const out: Obj = { ...e };
  if (typeof out.action_id === 'string') out.action_id = cut(out.action_id, SLACK_LIMITS.id);
  if (out.placeholder) out.placeholder = textObj(out.placeholder, SLACK_LIMITS.placeholder);
  if (e.type === 'button') {
    out.text = textObj(out.text, SLACK_LIMITS.buttonText);
    out.value = str(out.value, SLACK_LIMITS.buttonValue);
    out.url = str(out.url, SLACK_LIMITS.url);
  }
  if (out.options) out.options = options(out.options);
  if (Array.isArray(out.option_groups)) {
    out.option_groups = out.option_groups
      .slice(0, SLACK_LIMITS.options)
      .map((g) =>
        isObj(g) ? { ...g, label: textObj(g.label, SLACK_LIMITS.optionText), options: options(g.options) } : g,
      );
  }
  if (out.initial_option) out.initial_option = option(out.initial_option);
  return out;
}

/** At most `max` text items: the last one kept says how many more there were. */
function capWithMore(items: unknown[], max: number): unknown[] {
  if (items.length <= max) return items;
  return [...items.slice(0, max - 1), { type: 'mrkdwn', text: more(items.length - max + 1) }];
}

function block(b: unknown): unknown {
  if (!isObj(b)) return b;
  const out: Obj = { ...b };
  if (typeof out.block_id === 'string') out.block_id = cut(out.block_id, SLACK_LIMITS.id);
  switch (b.type) {
    case 'section': {
      if (out.text) out.text = textObj(out.text, SLACK_LIMITS.sectionText);
      if (Array.isArray(out.fields)) {
        out.fields = capWithMore(
          out.fields.map((f) => textObj(f, SLACK_LIMITS.fieldText)),
          SLACK_LIMITS.fields,
        );
      }
      if (out.accessory) out.accessory = element(out.accessory);
      break;
    }
    case 'header':
      out.text = textObj(out.text, SLACK_LIMITS.headerText);
      break;
    case 'context': {
      if (Array.isArray(out.elements)) {
        out.elements = capWithMore(
          out.elements.map((e) => textObj(e, SLACK_LIMITS.contextText)),
          SLACK_LIMITS.contextElements,
        );
      }
      break;
    }
    case 'actions':
      if (Array.isArray(out.elements)) out.elements = out.elements.slice(0, SLACK_LIMITS.actionsElements).map(element);
      break;
    case 'input':
      out.label = textObj(out.label, SLACK_LIMITS.inputLabel);
      if (out.hint) out.hint = textObj(out.hint, SLACK_LIMITS.hint);
      if (out.element) out.element = element(out.element);
      break;
  }
  return out;
}

/** At most `max` blocks; what does not fit is counted in a last context block. */
export function clampBlocks(blocks: unknown, max: number): unknown {
  if (!Array.isArray(blocks)) return blocks;
  const all = blocks.map(block);
  if (all.length <= max) return all;
  const kept = all.slice(0, max - 1);
  return [
    ...kept,
    { type: 'context', elements: [{ type: 'mrkdwn', text: `${more(all.length - kept.length)} not shown.` }] },
  ];
}

/** A chat.postMessage / update / postEphemeral body, or a response_url body. */
export function clampMessage<T>(msg: T): T {
  if (!isObj(msg)) return msg;
  const out: Obj = { ...msg };
  if (typeof out.text === 'string') out.text = cut(out.text, SLACK_LIMITS.messageText);
  if (out.blocks !== undefined) out.blocks = clampBlocks(out.blocks, SLACK_LIMITS.messageBlocks);
  return out as T;
}

export function clampView<T>(view: T): T {
  if (!isObj(view)) return view;
  const out: Obj = { ...view };
  out.title = textObj(out.title, SLACK_LIMITS.viewTitle);
  if (out.submit) out.submit = textObj(out.submit, SLACK_LIMITS.viewButton);
  if (out.close) out.close = textObj(out.close, SLACK_LIMITS.viewButton);
  if (typeof out.callback_id === 'string') out.callback_id = cut(out.callback_id, SLACK_LIMITS.callbackId);
  // Metadata cut in half is useless to its reader (it says "out of date"), but Slack refuses the whole view otherwise.
  if (typeof out.private_metadata === 'string' && out.private_metadata.length > SLACK_LIMITS.privateMetadata)
    out.private_metadata = '';
  out.blocks = clampBlocks(out.blocks, SLACK_LIMITS.viewBlocks);
  return out as T;
}

const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'chat.scheduleMessage']);
const VIEW_METHODS = new Set(['views.open', 'views.update', 'views.push', 'views.publish']);

/** The arguments of a Web API call, within Slack's limits (other methods pass unchanged). */
export function clampApiArgs(method: string, args: unknown): unknown {
  if (MESSAGE_METHODS.has(method)) return clampMessage(args);
  if (VIEW_METHODS.has(method) && isObj(args)) return { ...args, view: clampView(args.view) };
  return args;
}

type Fetch = typeof globalThis.fetch;

/** The Web API method a URL calls (its path's last part): read with string operations, as every Slack request pays for it. */
function methodOf(url: string): string {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The content-type of a request's headers, however given (a Headers, pairs or a record), without building a Headers. */
function contentTypeOf(headers: NonNullable<Parameters<Fetch>[1]>['headers']): string {
  if (!headers) return '';
  if (headers instanceof Headers) return headers.get('content-type') ?? '';
  const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [k, v] of pairs) if (k.toLowerCase() === 'content-type') return String(v);
  return '';
}

/** A Web API body (form-encoded, nested values as JSON text) with its message or view clamped. */
function clampForm(method: string, body: string): string {
  const form = new URLSearchParams(body);
  const args: Record<string, unknown> = {};
  for (const key of ['text', 'blocks', 'view']) {
    const v = form.get(key);
    if (v === null) continue;
    try {
      args[key] = key === 'text' ? v : JSON.parse(v);
    } catch {
      args[key] = v;
    }
  }
  const clamped = clampApiArgs(method, args) as Record<string, unknown>;
  for (const [key, v] of Object.entries(clamped))
    if (v !== undefined) form.set(key, typeof v === 'string' ? v : JSON.stringify(v));
  return form.toString();
}

/**
 * The one gate every outgoing Slack request passes: Bolt's clients, the outbox's client and
 * respond() (Bolt posts response_url bodies with clientOptions.fetch) all use this fetch.
 * Web API message and view methods (form bodies) and response_url posts (JSON bodies) are
 * clamped; everything else (file uploads, other methods) goes through untouched.
 */
export function limitedFetch(base: Fetch = globalThis.fetch): Fetch {
  return (async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = init?.body;
    if (typeof body !== 'string') return base(input, init);
    const method = methodOf(url);
    if (MESSAGE_METHODS.has(method) || VIEW_METHODS.has(method))
      return base(input, { ...init, body: clampForm(method, body) });
    if (contentTypeOf(init?.headers).includes('application/json')) {
      try {
        return base(input, { ...init, body: JSON.stringify(clampMessage(JSON.parse(body))) });
      } catch {
        return base(input, init);
      }
    }
    return base(input, init);
  }) as Fetch;
}
