/**
 * The shape of every envelope Slack sends us, checked with zod before any Bolt code or
 * listener reads it. Bolt itself reads `body.type`, `body.user.id`, `body.actions[0]`,
 * `body.view.state.values` and so on without checking; a signed request of another
 * shape used to crash the process (payload=null) or end in a 5xx. What fails here is
 * something no person using Slack could have sent, so it gets a 400 (HTTP) or a bare ack
 * (Socket Mode) and a log line; a person's own words (a slash command's text) are never
 * judged here: the commands answer those.
 *
 * Schemas are loose (unknown keys pass through: Slack adds fields over time) but every
 * field Bolt or our listeners read has the type they assume.
 */
import { z } from 'zod';

const id = z.string().min(1).max(255);
const optText = z.string().nullish();

const user = z.looseObject({ id });

/** One value in view.state.values[block][action]: only the fields our listeners read are typed. */
const stateValue = z.looseObject({
  type: z.string().optional(),
  value: optText,
  selected_option: z.looseObject({ value: z.string() }).nullish(),
  selected_date: optText,
  selected_user: optText,
  selected_channel: optText,
  selected_conversation: optText,
});

const state = z.looseObject({
  values: z.record(z.string(), z.record(z.string(), stateValue)),
});

const view = z.looseObject({
  id,
  callback_id: z.string(),
  private_metadata: z.string().optional(),
  state: state,
});

/** A view a button was clicked in (a modal or the App Home): only view_submission needs its callback_id and state. */
const viewWithoutState = view.extend({ callback_id: z.string().optional(), state: state.optional() });

const action = z.looseObject({
  action_id: z.string(),
  block_id: z.string().optional(),
  type: z.string(),
  value: z.string().optional(),
  selected_option: z.looseObject({ value: z.string() }).nullish(),
});

export const slashCommandSchema = z.looseObject({
  command: z.string().startsWith('/'),
  text: z.string(),
  user_id: id,
  channel_id: z.string(),
  team_id: z.string(),
  response_url: z.string().url(),
  trigger_id: z.string(),
});

const blockActions = z.looseObject({
  type: z.literal('block_actions'),
  user,
  actions: z.array(action).min(1),
  team: z.looseObject({ id: z.string() }).nullish(),
  channel: z.looseObject({ id: z.string() }).optional(),
  container: z.looseObject({ type: z.string() }).optional(),
  message: z.looseObject({ ts: z.string() }).optional(),
  view: viewWithoutState.optional(),
  state: state.optional(),
  response_url: z.string().url().optional(),
  trigger_id: z.string().optional(),
});

const viewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  user,
  view,
  team: z.looseObject({ id: z.string() }).nullish(),
});
const viewClosed = z.looseObject({ type: z.literal('view_closed'), user, view: viewWithoutState });
const shortcut = z.looseObject({
  type: z.enum(['shortcut', 'message_action']),
  callback_id: z.string(),
  user,
  trigger_id: z.string(),
});
const blockSuggestion = z.looseObject({
  type: z.literal('block_suggestion'),
  user,
  action_id: z.string(),
  value: z.string(),
});
const eventCallback = z.looseObject({
  type: z.literal('event_callback'),
  team_id: z.string().optional(),
  event: z.looseObject({ type: z.string() }),
});
const urlVerification = z.looseObject({ type: z.literal('url_verification'), challenge: z.string() });
/** Slack tells an app it dropped events; nothing to do but acknowledge. */
const appRateLimited = z.looseObject({ type: z.literal('app_rate_limited') });

const typed = z.discriminatedUnion('type', [
  blockActions,
  viewSubmission,
  viewClosed,
  shortcut,
  blockSuggestion,
  eventCallback,
  urlVerification,
  appRateLimited,
]);

export type EnvelopeCheck = { ok: true; kind: string } | { ok: false; reason: string };

/** A short description of what was wrong, for the log (never the payload itself: it may hold anything). */
function describe(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.').slice(0, 80) || '(root)'}: ${i.message.slice(0, 120)}`)
    .join('; ');
}

/**
 * Each parsed body is checked once: the HTTP receiver checks it before Bolt sees it, and
 * guardEvents() (the door it shares with Socket Mode) asks again about the same object. Bodies
 * are never changed after parsing (Bolt and our listeners only read them), so the answer stays
 * true. (Socket Mode's envelopes are checked on the socket client's own parse, and again here.)
 */
const checked = new WeakMap<object, EnvelopeCheck>();

/** Checks a parsed Slack body (form fields, or the JSON `payload`/event body). */
export function checkEnvelope(body: unknown): EnvelopeCheck {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, reason: 'the body is not an object' };
  let answer = checked.get(body);
  if (!answer) {
    answer = checkObject(body as Record<string, unknown>);
    checked.set(body, answer);
  }
  return answer;
}

function checkObject(b: Record<string, unknown>): EnvelopeCheck {
  if (Object.hasOwn(b, 'ssl_check'))
    return b.ssl_check === '1' ? { ok: true, kind: 'ssl_check' } : { ok: false, reason: 'ssl_check must be 1' };
  if (Object.hasOwn(b, 'command')) {
    const r = slashCommandSchema.safeParse(b);
    return r.success
      ? { ok: true, kind: 'slash_command' }
      : { ok: false, reason: `slash command: ${describe(r.error)}` };
  }
  if (typeof b.type !== 'string') return { ok: false, reason: 'no type' };
  const r = typed.safeParse(b);
  if (r.success) return { ok: true, kind: r.data.type };
  return { ok: false, reason: `${b.type.slice(0, 40)}: ${describe(r.error)}` };
}
