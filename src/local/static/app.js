// The local workspace page: renders what the workspace server says one person sees, and sends
// what that person does back to it. Everything from the app or from users is put on the page
// as text nodes (never as HTML), so a message can never become markup or script.

const EMOJI = {
  warning: '⚠️',
  white_check_mark: '✅',
  x: '❌',
  no_entry: '⛔',
  rotating_light: '🚨',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  grey_question: '❔',
  inbox_tray: '📥',
  outbox_tray: '📤',
  red_circle: '🔴',
  large_green_circle: '🟢',
  white_circle: '⚪',
  lock: '🔒',
  information_source: 'ℹ️',
  arrows_counterclockwise: '🔄',
  alarm_clock: '⏰',
  moneybag: '💰',
  bank: '🏦',
  key: '🔑',
  tada: '🎉',
  eyes: '👀',
  heavy_check_mark: '✔️',
  memo: '📝',
  link: '🔗',
  clipboard: '📋',
  bell: '🔔',
  chart_with_upwards_trend: '📈',
  thumbsup: '👍',
  '+1': '👍',
  fire: '🔥',
  calendar: '📅',
};

const state = {
  me: localStorage.getItem('me') || '',
  pane: localStorage.getItem('pane') || 'C0GENERAL',
  data: null,
  modalKey: '',
};

// ---------- tiny DOM helpers ----------
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false)
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error || `HTTP ${res.status}`);
  return json;
}

// ---------- names ----------
function personName(id) {
  const p = state.data?.people.find((x) => x.id === id);
  return p ? p.name : id;
}
function channelName(id) {
  const c = state.data?.channels.find((x) => x.id === id);
  return c ? c.name : id;
}

// ---------- mrkdwn ----------
function decode(t) {
  return t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
function emojify(t) {
  return decode(t).replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] ?? m);
}
// Slack's formatting marks only count at word edges (snake_case stays as is).
const INLINE =
  /<([^<>|]+)(?:\|([^<>]+))?>|`([^`\n]+)`|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])|(?<![\w~])~([^~\n]+)~(?![\w~])/g;

function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(emojify(text.slice(last, m.index)));
    if (m[1] !== undefined) out.push(special(m[1], m[2]));
    else if (m[3] !== undefined) out.push(h('code', {}, decode(m[3])));
    else if (m[4] !== undefined) out.push(h('b', {}, inline(m[4])));
    else if (m[5] !== undefined) out.push(h('i', {}, inline(m[5])));
    else if (m[6] !== undefined) out.push(h('s', {}, inline(m[6])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(emojify(text.slice(last)));
  return out;
}

function special(target, label) {
  if (target.startsWith('@')) return h('span', { class: 'mention' }, `@${personName(target.slice(1))}`);
  if (target.startsWith('#')) return h('span', { class: 'mention' }, `#${label ?? channelName(target.slice(1))}`);
  if (target.startsWith('!subteam^')) return h('span', { class: 'mention' }, label ?? '@group');
  if (target.startsWith('!date^')) return decode(label ?? '');
  if (target.startsWith('!')) return h('span', { class: 'mention' }, `@${target.slice(1)}`);
  const url = decode(target);
  // Only web and mail links are clickable; anything else (javascript:, data:) stays text.
  if (!/^(https?:|mailto:)/i.test(url)) return decode(label ?? target);
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, label ? inline(label) : url);
}

function mrkdwn(text) {
  const parts = String(text ?? '').split('```');
  const frag = document.createDocumentFragment();
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      frag.append(h('pre', {}, decode(part)));
      return;
    }
    part.split('\n').forEach((line, j) => {
      if (j > 0) frag.append(h('br'));
      const quote = line.startsWith('&gt; ') || line.startsWith('> ');
      const body = quote ? line.replace(/^(&gt;|>) /, '') : line;
      const nodes = inline(body);
      frag.append(quote ? h('q', {}, nodes) : h('span', {}, nodes));
    });
  });
  return frag;
}

function textObj(t) {
  if (!t) return '';
  return t.type === 'mrkdwn' ? mrkdwn(t.text) : emojify(t.text ?? '');
}

// ---------- Block Kit ----------
// `ctx` says where an action happens: { source: 'message'|'ephemeral'|'view'|'home', channel, ts, viewId }.
function element(el, blockId, ctx) {
  if (!el) return null;
  switch (el.type) {
    case 'button':
      return h(
        'button',
        {
          class: `bk ${el.style ?? ''}`,
          type: 'button',
          'data-action-id': el.action_id,
          onclick: () => clickButton(el, blockId, ctx),
        },
        textObj(el.text),
      );
    case 'image':
      return h('img', { src: el.image_url, alt: el.alt_text ?? '', class: 'block-image' });
    case 'static_select':
    case 'overflow': {
      const options = el.options ?? (el.option_groups ?? []).flatMap((g) => g.options);
      const sel = h(
        'select',
        {
          'data-action-id': el.action_id,
          onchange: (e) => {
            const o = options.find((x) => x.value === e.target.value);
            if (o) act({ action_id: el.action_id, block_id: blockId, type: el.type, selected_option: o }, ctx);
          },
        },
        h('option', { value: '' }, el.placeholder?.text ?? 'Choose…'),
        options.map((o) => h('option', { value: o.value }, o.text.text)),
      );
      return sel;
    }
    case 'mrkdwn':
    case 'plain_text':
      return h('span', {}, textObj(el));
    default:
      return h('span', { class: 'empty' }, `[${el.type}]`);
  }
}

function block(b, ctx, i) {
  const blockId = b.block_id ?? `b${i}`;
  switch (b.type) {
    case 'header':
      return h('div', { class: 'block header' }, textObj(b.text));
    case 'section': {
      const main = h(
        'div',
        {},
        b.text ? h('div', {}, textObj(b.text)) : null,
        b.fields
          ? h(
              'div',
              { class: 'fields' },
              b.fields.map((f) => h('div', {}, textObj(f))),
            )
          : null,
      );
      return h(
        'div',
        { class: 'block section' },
        main,
        b.accessory ? h('div', { class: 'accessory' }, element(b.accessory, blockId, ctx)) : null,
      );
    }
    case 'context':
      return h(
        'div',
        { class: 'block context' },
        (b.elements ?? []).map((e) =>
          e.type === 'image' ? h('img', { src: e.image_url, alt: e.alt_text ?? '' }) : h('span', {}, textObj(e)),
        ),
      );
    case 'divider':
      return h('hr', { class: 'divider' });
    case 'image':
      return h(
        'figure',
        { class: 'block' },
        // An uploaded image (slack_file) is served by the local workspace, shared or not, as Slack shows it.
        h('img', {
          src: b.slack_file?.id ? `/local/files/${encodeURIComponent(b.slack_file.id)}` : b.image_url,
          alt: b.alt_text ?? '',
          class: 'block-image',
        }),
        b.title ? h('figcaption', {}, textObj(b.title)) : null,
      );
    case 'actions':
      return h(
        'div',
        { class: 'block actions' },
        (b.elements ?? []).map((e) => element(e, blockId, ctx)),
      );
    case 'input':
      return inputBlock(b, ctx, blockId);
    case 'rich_text':
      return h('div', { class: 'block' }, richText(b.elements ?? []));
    default:
      return h('div', { class: 'block empty' }, `[${b.type} block]`);
  }
}

function richText(elements) {
  return elements.map((e) => {
    if (e.type === 'text') return e.text;
    if (e.type === 'link')
      return h(
        'a',
        { href: /^https?:/i.test(e.url) ? e.url : '#', target: '_blank', rel: 'noopener noreferrer' },
        e.text ?? e.url,
      );
    if (e.type === 'user') return h('span', { class: 'mention' }, `@${personName(e.user_id)}`);
    if (e.elements) return h(e.type === 'rich_text_preformatted' ? 'pre' : 'div', {}, richText(e.elements));
    return '';
  });
}

function blocks(list, ctx) {
  return (list ?? []).map((b, i) => block(b, ctx, i));
}

// ---------- inputs in modals ----------
function inputBlock(b, ctx, blockId) {
  const el = b.element ?? {};
  const id = `in-${blockId}`;
  const error = ctx.errors?.[blockId];
  let control;
  const common = { id, name: blockId, 'data-action-id': el.action_id, 'data-type': el.type };
  if (el.type === 'static_select') {
    const options = el.options ?? (el.option_groups ?? []).flatMap((g) => g.options);
    control = h(
      'select',
      common,
      h('option', { value: '' }, el.placeholder?.text ?? 'Choose an option'),
      options.map((o) => h('option', { value: o.value, selected: el.initial_option?.value === o.value }, o.text.text)),
    );
  } else if (el.multiline) {
    control = h(
      'textarea',
      { ...common, rows: 3, placeholder: el.placeholder?.text, maxlength: el.max_length },
      el.initial_value ?? '',
    );
  } else {
    const type =
      el.type === 'email_text_input'
        ? 'email'
        : el.type === 'number_input'
          ? 'text'
          : el.type === 'url_text_input'
            ? 'url'
            : 'text';
    control = h('input', {
      ...common,
      type,
      placeholder: el.placeholder?.text,
      value: el.initial_value,
      maxlength: el.max_length,
    });
  }
  return h(
    'div',
    { class: `block input${error ? ' has-error' : ''}` },
    h('label', { for: id }, textObj(b.label), b.optional ? h('span', { class: 'optional' }, ' (optional)') : null),
    control,
    error ? h('div', { class: 'field-error', role: 'alert' }, error) : null,
    b.hint ? h('div', { class: 'hint' }, textObj(b.hint)) : null,
  );
}

function collectValues(form) {
  const values = {};
  for (const el of form.querySelectorAll('[data-action-id][name]')) {
    const blockId = el.name;
    const actionId = el.dataset.actionId;
    const type = el.dataset.type;
    let v;
    if (el.tagName === 'SELECT') {
      const opt = el.selectedOptions[0];
      v = {
        type,
        selected_option: el.value
          ? { text: { type: 'plain_text', text: opt.textContent, emoji: true }, value: el.value }
          : null,
      };
    } else if (type === 'number_input') v = { type, value: el.value === '' ? null : el.value };
    else v = { type, value: el.value === '' ? null : el.value };
    values[blockId] = { [actionId]: v };
  }
  return values;
}

// ---------- doing things ----------
function clickButton(el, blockId, ctx) {
  if (el.url) window.open(el.url, '_blank', 'noopener');
  const go = () =>
    act({ action_id: el.action_id, block_id: blockId, type: 'button', value: el.value, text: el.text?.text }, ctx);
  if (el.confirm) return showConfirm(el.confirm, go);
  go();
}

async function act(action, ctx) {
  const body = { source: ctx.source, user: state.me, action };
  if (ctx.source === 'message' || ctx.source === 'ephemeral') Object.assign(body, { channel: ctx.channel, ts: ctx.ts });
  if (ctx.source === 'view')
    Object.assign(body, { viewId: ctx.viewId, values: collectValues(document.querySelector('#modals form')) });
  try {
    await post('/local/action', body);
    status('');
  } catch (err) {
    status(err.message);
  }
}

function showConfirm(c, go) {
  const layer = document.getElementById('confirm-layer');
  const close = () => layer.replaceChildren();
  layer.replaceChildren(
    h(
      'div',
      { class: 'overlay', role: 'dialog', 'aria-label': c.title?.text ?? 'Are you sure?' },
      h(
        'div',
        { class: 'modal' },
        h('header', {}, textObj(c.title ?? { type: 'plain_text', text: 'Are you sure?' })),
        h('div', { class: 'body' }, textObj(c.text)),
        h(
          'footer',
          {},
          h('button', { class: 'bk', type: 'button', onclick: close }, c.deny?.text ?? 'Cancel'),
          h(
            'button',
            {
              class: `bk ${c.style ?? 'primary'}`,
              type: 'button',
              onclick: () => {
                close();
                go();
              },
            },
            c.confirm?.text ?? 'Yes',
          ),
        ),
      ),
    ),
  );
}

function status(text) {
  document.getElementById('composer-status').textContent = text;
}

// ---------- the page ----------
function render() {
  const d = state.data;
  if (!d) return;
  const people = document.getElementById('people');
  people.replaceChildren(
    ...d.people.map((p) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            class: 'person',
            type: 'button',
            'aria-current': String(p.id === state.me),
            'data-user': p.id,
            onclick: () => switchUser(p.id),
          },
          p.name,
          h('span', { class: 'roles' }, p.roles.join(', ') || 'no role'),
        ),
      ),
    ),
  );
  const nav = (c) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          class: 'nav',
          type: 'button',
          'aria-current': String(state.pane === c.id),
          'data-channel': c.name,
          onclick: () => openPane(c.id),
        },
        c.kind === 'dm' ? c.name : `# ${c.name}`,
      ),
    );
  document.getElementById('channels').replaceChildren(...d.channels.filter((c) => c.kind === 'channel').map(nav));
  document.getElementById('dms').replaceChildren(...d.channels.filter((c) => c.kind === 'dm').map(nav));
  document.getElementById('home-link').setAttribute('aria-current', String(state.pane === 'home'));
  document.getElementById('deposit-section').hidden = !d.sandbox;
  renderPane();
  renderModals();
}

function renderPane() {
  const d = state.data;
  const pane = document.getElementById('pane');
  const atBottom = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
  const title = document.getElementById('pane-title');
  if (state.pane === 'home') {
    title.textContent = 'Treasury · Home';
    pane.replaceChildren(
      d.home
        ? h('div', { class: 'home' }, blocks(d.home.blocks, { source: 'home' }))
        : h('p', { class: 'empty' }, 'Opening the Home tab…'),
    );
    return;
  }
  const c = d.channels.find((x) => x.id === state.pane) ?? d.channels[0];
  state.pane = c.id;
  title.textContent = c.kind === 'dm' ? c.name : `#${c.name}`;
  const items = [
    ...c.messages.map((m) => ({ ts: m.ts, node: message(m, c, false) })),
    ...c.ephemerals.map((m) => ({ ts: m.ts, node: message(m, c, true) })),
  ].sort((a, b) => (tsKey(a.ts) < tsKey(b.ts) ? -1 : 1));
  pane.replaceChildren(...(items.length ? items.map((i) => i.node) : [h('p', { class: 'empty' }, 'No messages yet.')]));
  if (atBottom) pane.scrollTop = pane.scrollHeight;
}

function tsKey(ts) {
  const [s, f = ''] = String(ts).split('.');
  return `${s.padStart(12, '0')}.${f.padEnd(6, '0')}`;
}

function message(m, c, ephemeral) {
  const ctx = { source: ephemeral ? 'ephemeral' : 'message', channel: c.id, ts: m.ts };
  const when = new Date(Number(String(m.ts).split('.')[0]) * 1000).toLocaleTimeString();
  const body = m.blocks?.length ? blocks(m.blocks, ctx) : [h('div', {}, mrkdwn(m.text))];
  const files = (m.files ?? []).map((f) =>
    h(
      'div',
      { class: 'file' },
      f.image ? h('img', { src: `/local/files/${encodeURIComponent(f.id)}`, alt: f.title, class: 'file-image' }) : null,
      h('a', { href: `/local/files/${encodeURIComponent(f.id)}`, download: f.name }, `📎 ${f.title || f.name}`),
      h('span', { class: 'meta' }, ` ${f.size} bytes`),
    ),
  );
  const attachments = (m.attachments ?? []).map((a) =>
    h(
      'div',
      { class: 'block', style: undefined },
      a.blocks ? blocks(a.blocks, ctx) : mrkdwn(a.text ?? a.fallback ?? ''),
    ),
  );
  const node = h(
    'article',
    { class: `msg${ephemeral ? ' ephemeral' : ''}`, 'data-ts': m.ts },
    h(
      'div',
      {},
      h('span', { class: 'who' }, 'Treasury'),
      h('span', { class: 'meta' }, when, m.edited ? ' (edited)' : ''),
      ephemeral ? h('span', { class: 'only-you' }, ' · Only visible to you') : null,
    ),
    body,
    attachments,
    files,
  );
  const replies = m.replies ?? [];
  if (!replies.length) return node;
  return h(
    'div',
    {},
    node,
    h('div', { class: 'thread-label' }, `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`),
    h(
      'div',
      { class: 'thread' },
      replies.map((r) => message(r, c, false)),
    ),
  );
}

function renderModals() {
  const layer = document.getElementById('modals');
  const stack = state.data.modals;
  const top = stack.at(-1);
  // Re-render only when the view itself changed, so what someone is typing survives live updates.
  const key = top ? `${top.id}|${top.hash}|${JSON.stringify(top.errors)}|${stack.length}` : '';
  if (key === state.modalKey) return;
  state.modalKey = key;
  if (!top) return layer.replaceChildren();
  const old = layer.querySelector('form');
  const typed = old && old.dataset.viewId === top.id ? collectValues(old) : null;
  const ctx = { source: 'view', viewId: top.id, errors: top.errors };
  const form = h(
    'form',
    {
      class: 'modal',
      'data-view-id': top.id,
      'aria-label': top.title?.text ?? 'Modal',
      onsubmit: (e) => {
        e.preventDefault();
        submitModal(top, form);
      },
    },
    h(
      'header',
      {},
      h('span', {}, textObj(top.title)),
      stack.length > 1 ? h('span', { class: 'stack-depth' }, `${stack.length} stacked`) : null,
    ),
    h(
      'div',
      { class: 'body' },
      top.errors?._ ? h('p', { class: 'modal-error', role: 'alert' }, top.errors._) : null,
      blocks(top.blocks, ctx),
    ),
    h(
      'footer',
      {},
      h(
        'button',
        {
          class: 'bk',
          type: 'button',
          onclick: () => post('/local/close', { user: state.me, viewId: top.id }).catch((e) => status(e.message)),
        },
        top.close?.text ?? 'Cancel',
      ),
      top.submit ? h('button', { class: 'bk primary', type: 'submit' }, top.submit.text) : null,
    ),
  );
  if (typed) restoreValues(form, typed);
  layer.replaceChildren(h('div', { class: 'overlay', role: 'dialog', 'aria-label': top.title?.text ?? 'Modal' }, form));
}

function restoreValues(form, values) {
  for (const el of form.querySelectorAll('[data-action-id][name]')) {
    const v = values[el.name]?.[el.dataset.actionId];
    if (!v) continue;
    if (el.tagName === 'SELECT') el.value = v.selected_option?.value ?? '';
    else if (v.value !== null) el.value = v.value;
  }
}

async function submitModal(view, form) {
  try {
    await post('/local/submit', { user: state.me, viewId: view.id, values: collectValues(form) });
  } catch (err) {
    status(err.message);
  }
}

// ---------- navigation and live updates ----------
async function refresh() {
  if (!state.me) {
    const res = await fetch('/local/state?user=U0NOBODY');
    const d = await res.json();
    state.me = d.people[0]?.id ?? 'U0NOBODY';
  }
  const res = await fetch(`/local/state?user=${encodeURIComponent(state.me)}`);
  if (!res.ok) return;
  state.data = await res.json();
  if (!state.data.people.some((p) => p.id === state.me) && state.data.people[0]) {
    state.me = state.data.people[0].id;
    return refresh();
  }
  render();
}

let pendingRefresh = null;
function scheduleRefresh() {
  if (pendingRefresh) return;
  pendingRefresh = setTimeout(() => {
    pendingRefresh = null;
    refresh().catch((e) => status(e.message));
  }, 20);
}

function switchUser(id) {
  state.me = id;
  localStorage.setItem('me', id);
  state.modalKey = '';
  if (state.pane === 'home' || state.data?.channels.find((c) => c.id === state.pane)?.kind === 'dm')
    state.pane = 'C0GENERAL';
  refresh();
}

function openPane(id) {
  state.pane = id;
  localStorage.setItem('pane', id);
  render();
}

document.getElementById('home-link').addEventListener('click', () => {
  state.pane = 'home';
  render();
  post('/local/home', { user: state.me }).catch((e) => status(e.message));
});

document.getElementById('composer').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = document.getElementById('command');
  const text = input.value.trim();
  if (!text) return;
  const channel = state.pane === 'home' ? 'C0GENERAL' : state.pane;
  if (state.pane === 'home') openPane(channel);
  input.value = '';
  try {
    await post('/local/command', { user: state.me, channel, text });
    status('');
  } catch (err) {
    status(err.message);
    input.value = text;
  }
});

document.getElementById('deposit-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const out = document.getElementById('deposit-status');
  out.textContent = 'Sending…';
  try {
    await post('/local/deposit', Object.fromEntries(f));
    out.textContent = 'Deposit sent; its alert follows.';
  } catch (err) {
    out.textContent = err.message;
  }
});

const events = new EventSource('/local/events');
events.addEventListener('open', () => document.getElementById('live').classList.add('on'));
events.addEventListener('error', () => document.getElementById('live').classList.remove('on'));
events.addEventListener('change', scheduleRefresh);

refresh().catch((e) => status(e.message));
