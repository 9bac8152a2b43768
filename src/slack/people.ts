/**
 * People named in a command: an @-mention (`<@U123|dave>`, what Slack sends with `should_escape`)
 * is taken as it is; a plain `@dave` or `Dave Li` (typed without picking from the list, or sent by
 * a workspace that does not escape) is looked up in the workspace's directory (users.list,
 * cached) and must name exactly one person, else the refusal names the candidates.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';

export type PersonMatch =
  | {
      ok: true;
      id: string;
      /** Set when the person was found from a typed name or id (not an @-mention): who it was, to say so. */
      byName?: { name: string; handle: string };
    }
  | { ok: false; message: string };

export interface PeopleResolver {
  /** `typed`: the words naming one person, with any @-mention token kept whole (`wordsKeepingMentions`). */
  resolve(typed: string): Promise<PersonMatch>;
}

/** What matching needs of a users.list member (deleted users and bots are left out when it is read). */
export interface DirectoryEntry {
  id: string;
  name?: string | undefined;
  realName?: string | undefined;
  displayName?: string | undefined;
}

/**
 * An @-mention as Slack sends it: `<@U123>` or `<@U123|name>`. Only this token is an id as it
 * is; a typed `@UMA` or `WALLY` is a name (or an id only if the directory has that id).
 */
const MENTION = /^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$/;
/** The directory is read again after this long, and at once on a miss once it is this old (a new colleague). */
const TTL_MS = 5 * 60_000;
const MISS_REFRESH_MS = 30_000;
const PAGE = 200;
/** A workspace larger than this is not read whole for a name: an @-mention still works. */
const MAX_PAGES = 50;
const CANDIDATES_SHOWN = 5;

export const TOO_LARGE = 'The workspace is too large to look names up: use an @-mention.';
export const MISSING_SCOPE =
  'This app may not read the workspace’s member list yet: an admin must reinstall the app to grant it the new permission to see people’s names. Until then, pick the person with an @-mention.';

const fold = (s: string | undefined) => (s ?? '').normalize('NFKC').trim().toLowerCase();
const firstWord = (s: string | undefined) => fold(s).split(/\s+/)[0] ?? '';
const fullName = (p: DirectoryEntry) => p.realName?.trim() || p.displayName?.trim() || p.name?.trim() || p.id;
const label = (p: DirectoryEntry) => (p.name?.trim() ? `${fullName(p)} (@${p.name.trim()})` : fullName(p));

/** Every way a typed word can name someone: their id, handle, display name, full name or first name. */
function names(p: DirectoryEntry, typed: string, wanted: string): boolean {
  if (p.id === typed) return true;
  if ([p.name, p.displayName, p.realName].some((n) => fold(n) === wanted)) return true;
  return [p.displayName, p.realName].some((n) => firstWord(n) === wanted);
}

/**
 * Who `typed` names in `people`: an @-mention token as it is; otherwise the one person whom ALL
 * ways of matching (id, handle, display name, full name, first name) together give. Two people,
 * even by different ways (Dave Li's first name, Mallory's display name "Dave"), is a refusal
 * naming both. `partial`: the directory was not read whole, so a name could be someone unread:
 * only an id is taken. Pure; the refusal's words included.
 */
export function matchPerson(
  typed: string,
  people: readonly DirectoryEntry[],
  o: { partial?: boolean } = {},
): PersonMatch {
  const mention = MENTION.exec(typed.trim());
  if (mention?.[1]) return { ok: true, id: mention[1] };
  const bare = typed.trim().replace(/^@/, '');
  const wanted = fold(bare);
  const shown = `“${typed.trim().slice(0, 80)}”`;
  if (!wanted) return { ok: false, message: 'Say who: an @-mention of one person.' };
  const byId = people.find((p) => p.id === bare);
  if (o.partial && !byId) return { ok: false, message: TOO_LARGE };
  const found = people.filter((p) => names(p, bare, wanted));
  const [one] = found;
  if (found.length === 1 && one)
    return { ok: true, id: one.id, byName: { name: fullName(one), handle: one.name?.trim() || one.id } };
  if (!found.length)
    return { ok: false, message: `Nobody in this workspace is called ${shown}: pick the person with an @-mention.` };
  const shownNames = found.slice(0, CANDIDATES_SHOWN).map(label);
  const more = found.length - shownNames.length;
  const list =
    more > 0
      ? `${shownNames.join(', ')} and ${more} more`
      : `${shownNames.slice(0, -1).join(', ')} and ${shownNames.at(-1)}`;
  return { ok: false, message: `${shown} matches ${list}: pick one with an @-mention.` };
}

/** Slack's answer when the install lacks a scope the call needs (here users:read, added with this feature). */
const isMissingScope = (err: unknown) =>
  (err as { data?: { error?: unknown } } | undefined)?.data?.error === 'missing_scope';

/** The resolver over Slack's Web API: users.list read whole, cached, refreshed on a miss. */
export function slackPeople(client: WebClient, logger: Logger, now: () => number = Date.now): PeopleResolver {
  type Directory = { at: number; people: DirectoryEntry[]; partial: boolean };
  let cache: Directory | undefined;
  let reading: Promise<Directory> | undefined;
  let scopeLogged = false;

  async function readDirectory(): Promise<Directory> {
    const people: DirectoryEntry[] = [];
    let cursor: string | undefined;
    let page = 0;
    for (; page < MAX_PAGES; page++) {
      const res = await client.users.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
      for (const m of res.members ?? []) {
        // A deleted account or a bot is nobody a person means by a name.
        if (!m.id || m.deleted || m.is_bot || m.id === 'USLACKBOT') continue;
        people.push({
          id: m.id,
          name: m.name,
          realName: m.real_name ?? m.profile?.real_name,
          displayName: m.profile?.display_name,
        });
      }
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    // Stopped with pages left: what was read is not everyone, and a name could be someone unread.
    cache = { at: now(), people, partial: cursor !== undefined };
    return cache;
  }

  // One read at a time: a burst of commands shares it.
  const directory = (): Promise<Directory> => {
    reading ??= readDirectory().finally(() => {
      reading = undefined;
    });
    return reading;
  };

  return {
    async resolve(typed) {
      if (MENTION.test(typed.trim())) return matchPerson(typed, []);
      try {
        const fresh = cache && now() - cache.at < TTL_MS ? cache : await directory();
        const match = matchPerson(typed, fresh.people, fresh);
        if (match.ok || !cache || now() - cache.at < MISS_REFRESH_MS) return match;
        const again = await directory();
        return matchPerson(typed, again.people, again);
      } catch (err) {
        if (isMissingScope(err)) {
          // Not passing: the install predates the users:read scope. Said once to the operator, every time to the person.
          if (!scopeLogged)
            logger.error(
              'users.list refused with missing_scope: reinstall the app so it gets the users:read scope (people by name)',
            );
          scopeLogged = true;
          return { ok: false, message: MISSING_SCOPE };
        }
        logger.warn({ err }, 'could not read the workspace directory');
        return {
          ok: false,
          message: 'Slack’s directory could not be read just now: pick the person with an @-mention, or try again.',
        };
      }
    },
  };
}
