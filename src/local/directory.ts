/**
 * Who and where in the local workspace: the people named in the policy (with their roles
 * and readable names made from their ids) and the channels the policy uses, plus #general.
 */
import type { Policy, Role } from '../policy/schema.js';

export interface Person {
  id: string;
  /** "Alice" from U0ALICE. */
  name: string;
  /** "alice", as Slack's user name. */
  handle: string;
  roles: Role[];
}

export interface Channel {
  id: string;
  name: string;
  kind: 'channel' | 'dm';
}

export const GENERAL = 'C0GENERAL';
const ROLES: Role[] = ['requesters', 'approvers', 'admins', 'viewers'];

/** U0ALICE01 -> Alice; ids without letters keep themselves. */
export function nameFromId(id: string): string {
  const core = id
    .replace(/^[UW]0?/, '')
    .replace(/\d+$/, '')
    .toLowerCase();
  return core ? core[0]!.toUpperCase() + core.slice(1) : id;
}

export function peopleOf(policy: Policy): Person[] {
  const ids: string[] = [];
  for (const role of ROLES)
    for (const p of policy.people[role]) if (/^[UW][A-Z0-9]+$/.test(p) && !ids.includes(p)) ids.push(p);
  // With "*" viewers and nobody else outside the roles, add one person who may only look.
  if (policy.people.viewers.includes('*')) ids.push('U0VIEWER');
  return ids.map((id) => {
    const roles = ROLES.filter((r) => policy.people[r].includes(id) || policy.people[r].includes('*'));
    const name = nameFromId(id);
    return { id, name, handle: name.toLowerCase(), roles };
  });
}

/** The policy's channels (named for their use), #general, and any other channel the app posted to. */
export function channelDirectory(policy: Policy, seen: string[]): Channel[] {
  const out: Channel[] = [
    { id: GENERAL, name: 'general', kind: 'channel' },
    { id: policy.channels.approvals, name: 'approvals', kind: 'channel' },
    { id: policy.channels.alerts, name: 'alerts', kind: 'channel' },
  ];
  for (const r of policy.channels.routes) {
    if (out.some((c) => c.id === r.channel)) continue;
    const what = [r.kind, r.currency, r.network].filter(Boolean).join('-').toLowerCase();
    out.push({ id: r.channel, name: `alerts-${what || 'routed'}`, kind: 'channel' });
  }
  for (const id of seen)
    if (id.startsWith('C') && !out.some((c) => c.id === id)) out.push({ id, name: id.toLowerCase(), kind: 'channel' });
  return out;
}
