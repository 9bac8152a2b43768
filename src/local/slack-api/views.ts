/**
 * Modals and App Home tabs: views.open / push / update / publish, each user's stack of open
 * modals (a trigger_id ties a modal to the user who triggered it), and what a
 * view_submission ack or a Cancel does to that stack.
 */
import { SLACK_IDS, slackId, triggerId } from '../slack-ids.js';
import { ApiError, checkBlocks, decodeJson, requireString, str } from './args.js';
import type { Handler, SlackState } from './state.js';
import type { FakeView, Json } from './types.js';

export function viewHandlers(s: SlackState): Record<string, Handler> {
  return {
    'views.open': (args) => {
      const trigger = requireString(args, 'trigger_id', 'invalid_arguments');
      const view = newView(s, args.view, null);
      const owner = s.triggerOwners.get(trigger);
      if (owner) s.viewOwners.set(view.id, owner);
      return { view };
    },

    'views.push': (args) => {
      const trigger = requireString(args, 'trigger_id', 'invalid_arguments');
      const owner = s.triggerOwners.get(trigger);
      const top = owner ? stackOf(s, owner).at(-1) : [...s.views.values()].at(-1);
      const view = newView(s, args.view, top ?? null);
      if (owner) s.viewOwners.set(view.id, owner);
      return { view };
    },

    'views.update': (args) => {
      const id = str(args.view_id);
      const externalId = str(args.external_id);
      if (!id && !externalId) throw new ApiError('invalid_arguments', ['[ERROR] view_id or external_id is required']);
      const current = id ? s.views.get(id) : [...s.views.values()].find((v) => v.external_id === externalId);
      if (!current) throw new ApiError('not_found');
      const hash = str(args.hash);
      if (hash && hash !== current.hash) throw new ApiError('hash_conflict');
      const next = buildView(args.view, current.id);
      checkSlackFiles(s, next);
      const updated: FakeView = {
        ...next,
        id: current.id,
        root_view_id: current.root_view_id,
        previous_view_id: current.previous_view_id,
      };
      s.views.set(current.id, updated);
      return { view: updated };
    },

    'views.publish': (args) => {
      const user = requireString(args, 'user_id', 'invalid_arguments');
      const previous = s.homeTabs.get(user);
      const hash = str(args.hash);
      if (hash && previous && hash !== previous.hash) throw new ApiError('hash_conflict');
      const view = buildView(args.view, previous?.id ?? slackId('V'));
      if (view.type !== 'home')
        throw new ApiError('invalid_arguments', ['[ERROR] views.publish needs a view of type home']);
      view.user_id = user;
      s.homeTabs.set(user, view);
      return { view };
    },
  };
}

/** As Slack: an image block's `slack_file` must name an uploaded file (shared or not) the app can see. */
function checkSlackFiles(s: SlackState, view: FakeView): void {
  view.blocks.forEach((b, i) => {
    const file = ((b ?? {}) as Json).slack_file as Json | undefined;
    if (!file) return;
    const id = str(file.id);
    if (id && !s.uploads.get(id)?.completed)
      throw new ApiError('invalid_blocks', [`[ERROR] invalid slack_file [json-pointer:/blocks/${i}/slack_file]`]);
  });
}

/** A trigger_id for an interaction by `user`: modals opened with it belong to that user. */
export function issueTrigger(s: SlackState, user: string): string {
  const id = triggerId();
  s.triggerOwners.set(id, user);
  return id;
}

/** The modals open for `user`, bottom of the stack first. */
export function stackOf(s: SlackState, user: string): FakeView[] {
  return [...s.views.values()].filter((v) => s.viewOwners.get(v.id) === user);
}

/** Close a modal (the user pressed Cancel, or the app's ack closed it). */
export function closeView(s: SlackState, id: string): void {
  s.views.delete(id);
  s.viewOwners.delete(id);
}

/** Apply a view_submission ack: `update` replaces the view, `push` stacks one, `clear` closes all. */
export function applyViewResponse(s: SlackState, user: string, viewId: string, response: Json): void {
  const action = str(response.response_action);
  const current = s.views.get(viewId);
  if (action === 'clear') for (const v of stackOf(s, user)) s.views.delete(v.id);
  else if (action === 'update' && current)
    s.views.set(viewId, {
      ...buildView(response.view, viewId),
      root_view_id: current.root_view_id,
      previous_view_id: current.previous_view_id,
    });
  else if (action === 'push') s.viewOwners.set(newView(s, response.view, current ?? null).id, user);
  else if (action !== 'errors') s.views.delete(viewId);
}

function newView(s: SlackState, raw: unknown, previous: FakeView | null): FakeView {
  const id = slackId('V');
  const view: FakeView = {
    ...buildView(raw, id),
    root_view_id: previous?.root_view_id ?? id,
    previous_view_id: previous?.id ?? null,
  };
  if (view.type !== 'modal')
    throw new ApiError('invalid_arguments', ['[ERROR] only modal views can be opened or pushed']);
  checkSlackFiles(s, view);
  s.views.set(id, view);
  return view;
}

function buildView(raw: unknown, id: string): FakeView {
  const v = decodeJson(raw);
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new ApiError('invalid_arguments', ['[ERROR] view is required']);
  const view = v as Json;
  const type = str(view.type);
  if (type !== 'modal' && type !== 'home')
    throw new ApiError('invalid_arguments', ['[ERROR] view.type must be modal or home']);
  const pm = str(view.private_metadata);
  if (pm && pm.length > 3000)
    throw new ApiError('invalid_arguments', ['[ERROR] private_metadata must be at most 3000 characters']);
  const titleText = ((view.title ?? {}) as Json).text;
  if (type === 'modal') {
    if (typeof titleText !== 'string' || titleText.length === 0 || titleText.length > 24) {
      throw new ApiError('invalid_arguments', ['[ERROR] modal title text must be 1 to 24 characters']);
    }
  }
  const blocks = checkBlocks(view.blocks ?? [], 100, 'invalid_arguments');
  return {
    // Slack's view objects always carry these, empty when the app set none.
    callback_id: '',
    private_metadata: '',
    ...view,
    id,
    team_id: SLACK_IDS.teamId,
    type,
    blocks,
    state: { values: {} },
    hash: `${Math.floor(Date.now() / 1000)}.${Math.random().toString(36).slice(2, 10)}`,
    root_view_id: id,
    previous_view_id: null,
    app_id: SLACK_IDS.appId,
    bot_id: SLACK_IDS.botId,
  };
}
