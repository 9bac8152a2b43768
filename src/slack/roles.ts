/**
 * Roles as Bolt middleware: `app.action(id, requireRole('approvers'), listener)`. The middleware
 * acks at once (Slack waits 3 s; a group lookup may take 1.5 s), refuses with the policy's
 * words when the person lacks the role, and otherwise hands over to the listener, which must
 * not ack again. Decisions about a withdrawal stay with the withdrawal service; this only
 * keeps people out of commands and buttons the policy does not give them.
 */
import type { AllMiddlewareArgs, RespondFn } from '@slack/bolt';
import type { Role } from '../policy/schema.js';
import { refusal } from './access.js';
import type { CommandDeps } from './deps.js';
import { guarded } from './guard.js';

/** The part of a slash command's or a button click's arguments the check reads. */
export interface RoleCheckArgs {
  ack: () => Promise<void>;
  respond: RespondFn;
  body: { user_id?: string; user?: { id: string } };
  next: AllMiddlewareArgs['next'];
}

/** Who is asking: a slash command's body names them `user_id`, an interaction's `user.id`. */
function askerOf(body: RoleCheckArgs['body']): string {
  return body.user_id ?? body.user?.id ?? '';
}

/** `requireRole('viewers')` for the app's policy and groups; the refusal is ephemeral and never replaces a message. */
export function roleMiddleware(deps: Pick<CommandDeps, 'policy' | 'groups' | 'logger'>) {
  return (role: Role) =>
    async ({ ack, respond, body, next }: RoleCheckArgs): Promise<void> => {
      await ack();
      let allowed = false;
      await guarded(deps.logger, respond, 'The access check', async () => {
        const refused = await refusal(deps.policy.current(), role, askerOf(body), deps.groups);
        if (refused)
          return void (await respond({ response_type: 'ephemeral', replace_original: false, text: refused }));
        allowed = true;
      });
      if (allowed) await next();
    };
}
