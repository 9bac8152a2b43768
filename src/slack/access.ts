/**
 * The policy's people lists, answered with Slack's user-group membership. Membership is
 * cached briefly: every command asks, and a group rarely changes within a minute.
 */
import type { WebClient } from '@slack/web-api';
import { hasRole, type GroupResolver } from '../policy/people.js';
import type { Policy, Role } from '../policy/schema.js';
import type { Logger } from '../log.js';

const TTL_MS = 60_000;

export function slackGroups(client: WebClient, logger: Logger, now: () => number = Date.now): GroupResolver {
  const cache = new Map<string, { at: number; members: readonly string[] }>();
  return {
    async membersOf(groupId) {
      const hit = cache.get(groupId);
      if (hit && now() - hit.at < TTL_MS) return hit.members;
      try {
        const res = await client.usergroups.users.list({ usergroup: groupId });
        const members = res.users ?? [];
        cache.set(groupId, { at: now(), members });
        return members;
      } catch (err) {
        // Failing closed: an unreadable group grants nothing.
        logger.warn({ err, groupId }, 'could not read user group members');
        return hit?.members ?? [];
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
export async function refusal(policy: Policy, role: Role, userId: string, groups: GroupResolver): Promise<string | undefined> {
  if (await hasRole(policy, role, userId, groups)) return undefined;
  return `Sorry, you are not allowed to ${ROLE_WORDS[role]}. The treasury policy lists who may; ask a treasury admin if you need access.`;
}
