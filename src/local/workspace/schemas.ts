/**
 * What the page may send, checked before anything reaches the app: every body is parsed with
 * one of these schemas, and a refusal says which field was wrong (the page shows it as is).
 */
import { z } from 'zod';

export const userId = z.string().regex(/^[UW][A-Z0-9]{2,30}$/, 'a Slack user id such as U0ALICE');
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

export const commandBody = z.object({
  user: userId,
  channel: channelIdSchema,
  text: z.string().trim().min(1, 'type a command such as /tx').max(4000),
});
export const actionBody = z.discriminatedUnion('source', [
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
export const submitBody = z.object({ user: userId, viewId: z.string().max(40), values: valuesSchema });
export const closeBody = z.object({ user: userId, viewId: z.string().max(40) });
/** A file chosen in a modal's file_input: read by the page, kept by the workspace's Slack for files.info. */
export const uploadBody = z.object({
  user: userId,
  name: z.string().trim().min(1).max(255),
  content: z.string().max(1_000_000, 'the file is over 1 MB'),
});
export const homeBody = z.object({ user: userId });
export const depositBody = z.object({
  to: z.string().trim().min(3, 'a client e-mail or a generated address').max(200),
  amount: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'a positive decimal amount such as 250.50'),
  currency: z.string().trim().min(1).max(20),
  network: z.string().trim().min(1).max(20),
});

export type CommandBody = z.infer<typeof commandBody>;
export type ActionBody = z.infer<typeof actionBody>;
export type SubmitBody = z.infer<typeof submitBody>;
export type CloseBody = z.infer<typeof closeBody>;
export type UploadBody = z.infer<typeof uploadBody>;
export type HomeBody = z.infer<typeof homeBody>;
export type DepositBody = z.infer<typeof depositBody>;

/** A request the page got wrong: answered 400 with its message (other failures are 502). */
export class BadRequest extends Error {}

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new BadRequest(r.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; '));
  return r.data;
}
