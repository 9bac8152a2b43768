/**
 * Who may do what. Policy entries are user ids, user-group ids or "*"; group membership
 * comes from a resolver the caller provides (the Slack layer asks Slack), so this module
 * stays free of Slack.
 */
import type { Policy, Role } from './schema.js';

export interface GroupResolver {
  /** Member user ids of a user group; may be cached by the implementation. */
  membersOf(groupId: string): Promise<readonly string[]>;
}

export async function matches(entries: readonly string[], userId: string, groups?: GroupResolver): Promise<boolean> {
  if (entries.includes('*') || entries.includes(userId)) return true;
  if (!groups) return false;
  for (const entry of entries) {
    if (entry.startsWith('S') && (await groups.membersOf(entry)).includes(userId)) return true;
  }
  return false;
}

export async function hasRole(policy: Policy, role: Role, userId: string, groups?: GroupResolver): Promise<boolean> {
  // Admins can always see; seeing is the least a treasury admin needs.
  if (role === 'viewers' && (await matches(policy.people.admins, userId, groups))) return true;
  return matches(policy.people[role], userId, groups);
}

/**
 * The people a role's entries name, as user ids: groups expanded ("*", everyone, is nobody to
 * DM; a group that cannot be read is left out rather than holding back the change).
 */
export async function peopleIn(entries: readonly string[], groups?: GroupResolver): Promise<string[]> {
  const out = new Set<string>();
  for (const entry of entries) {
    if (entry === '*') continue;
    if (!entry.startsWith('S')) out.add(entry);
    else if (groups) for (const u of await groups.membersOf(entry).catch(() => [])) out.add(u);
  }
  return [...out];
}
