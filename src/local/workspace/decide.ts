/**
 * The workspace's own decisions, as Slack makes them, kept apart from the requests that carry
 * them out (actions.ts): no I/O here, so each answer depends only on its arguments.
 */
import type { Json, SlackReply } from '../requests.js';

/** `/tx currency=USDT` → the command and the text after it, as Slack splits them. */
export function splitCommand(line: string): { command: string; text: string } {
  const command = line.split(/\s+/)[0] ?? '';
  return { command, text: line.slice(command.length).trim() };
}

/** Slack's own answer to a command no app registered; undefined when the app has it. */
export function unknownCommand(command: string, registered: { has(name: string): boolean; names(): string[] }) {
  if (command.startsWith('/') && registered.has(command)) return undefined;
  const known = registered
    .names()
    .map((c) => `\`${c}\``)
    .join(', ');
  return `:warning: \`${command}\` is not a valid command. Try ${known}.`;
}

/** Slack posts an in_channel ack body in the channel, as a response_url post would. */
export const postsInChannel = (reply: SlackReply): boolean =>
  reply.status === 200 && reply.json?.response_type === 'in_channel';

export interface Notice {
  content: { text?: string; blocks?: unknown[] };
  /** Who shows it: Slack itself (`workspace`) or the app's ack body (`ack`). */
  via: 'workspace' | 'ack';
}

/**
 * Slack shows a slash command's ack body to the person who typed it, and a failure as Slack's
 * own notice; an empty ack shows nothing.
 */
export function ackNotice(what: string, reply: SlackReply): Notice | undefined {
  if (reply.status !== 200) {
    return {
      content: { text: `:warning: ${what} failed with the error "dispatch_failed" (HTTP ${reply.status})` },
      via: 'workspace',
    };
  }
  const j = reply.json;
  if (j && (typeof j.text === 'string' || Array.isArray(j.blocks))) {
    return {
      content: {
        text: typeof j.text === 'string' ? j.text : undefined,
        blocks: Array.isArray(j.blocks) ? j.blocks : undefined,
      },
      via: 'ack',
    };
  }
  if (!j && reply.text.trim()) return { content: { text: reply.text }, via: 'ack' };
  return undefined;
}

/** What a modal's submission came to, from the app's ack. */
export type Submission =
  /** The app did not answer 200: the modal stays, with Slack's connection error. */
  | { kind: 'unanswered'; errors: Record<string, string> }
  /** `response_action: errors`: the modal stays, with the app's field errors. */
  | { kind: 'errors'; errors: Record<string, string>; ack: Json }
  /** Anything else: applied as Slack applies it (close, update, push, clear). */
  | { kind: 'accepted'; ack: Json };

export function judgeSubmission(reply: SlackReply): Submission {
  if (reply.status !== 200) return { kind: 'unanswered', errors: { _: 'We had some trouble connecting. Try again?' } };
  const ack = reply.json ?? {};
  if (ack.response_action === 'errors') {
    return { kind: 'errors', errors: (ack.errors ?? {}) as Record<string, string>, ack };
  }
  return { kind: 'accepted', ack };
}

/** Why the sandbox refused a deposit, from its error body (its shapes vary by route). */
export function sandboxRefusal(status: number, body: Json): string {
  const msg = (body.message ??
    body.error ??
    (body as { data?: { message?: string } }).data?.message ??
    `HTTP ${status}`) as string;
  return `the sandbox refused the deposit: ${String(msg)}`;
}

/** Headers for an uploaded file: PNGs shown inline, everything else downloaded under a safe name. */
export function fileHeaders(name: string, size: number): Record<string, string | number> {
  const image = /\.png$/i.test(name);
  const safeName = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return {
    'content-type': image ? 'image/png' : /\.csv$/i.test(name) ? 'text/csv; charset=utf-8' : 'application/octet-stream',
    'content-length': size,
    'content-disposition': `${image ? 'inline' : 'attachment'}; filename="${safeName}"`,
    'x-content-type-options': 'nosniff',
  };
}
