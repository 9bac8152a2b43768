/**
 * The policy's people lists, answered with Slack's user-group membership. Membership is
 * cached briefly: every command asks, and a group rarely changes within a minute.
 */
import type { WebClient } from '@slack/web-api';
import { hasRole, type GroupResolver } from '../policy/people.js';
import type { Policy, Role } from '../policy/schema.js';
import type { Logger } from '../log.js';

const TTL_MS = 60_000;
/** Modal submissions must be answered within 3 s: a group lookup may take at most this. */
const LOOKUP_TIMEOUT_MS = 1_500;
/** After a failed lookup, Slack is not asked again for this long (each click would wait again). */
const FAILURE_BACKOFF_MS = 15_000;

export function slackGroups(client: WebClient, logger: Logger, now: () => number = Date.now): GroupResolver {
  const cache = new Map<string, { at: number; members: readonly string[] }>();
  const failedAt = new Map<string, number>();
  return {
    async membersOf(groupId) {
      const hit = cache.get(groupId);
      if (hit && now() - hit.at < TTL_MS) return hit.members;
      // Failing closed: an unreadable group grants nothing beyond what it granted last time.
      if (now() - (failedAt.get(groupId) ?? -Infinity) < FAILURE_BACKOFF_MS) return hit?.members ?? [];
      let timer: NodeJS.Timeout | undefined;
      try {
        const res = await Promise.race([
          client.usergroups.users.list({ usergroup: groupId }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer from Slack within ${LOOKUP_TIMEOUT_MS} ms`)),
              LOOKUP_TIMEOUT_MS,
            );
          }),
        ]);
        const members = res.users ?? [];
        cache.set(groupId, { at: now(), members });
        failedAt.delete(groupId);
        return members;
      } catch (err) {
        failedAt.set(groupId, now());
        logger.warn({ err, groupId }, 'could not read user group members');
        return hit?.members ?? [];
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const ROLE_WORDS: Record<Role, string> = {
  viewers: 'view addresses and transactions',
  requesters: 'request withdrawals',
  approvers: 'approve withdrawals',
  admins: 'use treasury admin commands',
};

/** Returns undefined when allowed, else the polite refusal to show the user. */
export async function refusal(
  policy: Policy,
  role: Role,
  userId: string,
  groups: GroupResolver,
): Promise<string | undefined> {
  if (await hasRole(policy, role, userId, groups)) return undefined;
  return `Sorry, you are not allowed to ${ROLE_WORDS[role]}. The treasury policy lists who may; ask a treasury admin if you need access.`;
}
