/**
 * People named in a command: an @-mention (`<@U123|dave>`, what Slack sends with `should_escape`)
 * is taken as it is; a plain `@dave` or `Dave Li` (typed without picking from the list, or sent by
 * a workspace that does not escape) is looked up in the workspace's directory (users.list,
 * cached) and must name exactly one person, else the refusal names the candidates.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';

export type PersonMatch = { ok: true; id: string } | { ok: false; message: string };

export interface PeopleResolver {
  /** `typed`: the words naming one person, as the command received them (after `words`). */
  resolve(typed: string): Promise<PersonMatch>;
}

/** What matching needs of a users.list member. */
export interface DirectoryEntry {
  id: string;
  name?: string | undefined;
  realName?: string | undefined;
  displayName?: string | undefined;
}

/** `<@U123>`, `<@U123|name>`, `@U123` (what `words` leaves of a mention) or a bare user id. */
const MENTION = /^<?@?([UW][A-Z0-9]{2,})(\|[^>]*)?>?$/;
/** The directory is read again after this long, and at once on a miss once it is this old (a new colleague). */
const TTL_MS = 5 * 60_000;
const MISS_REFRESH_MS = 30_000;
const PAGE = 200;
/** A workspace larger than this is not read whole for a name: an @-mention still works. */
const MAX_PAGES = 50;
const CANDIDATES_SHOWN = 5;

const fold = (s: string | undefined) => (s ?? '').normalize('NFKC').trim().toLowerCase();
const firstWord = (s: string | undefined) => fold(s).split(/\s+/)[0] ?? '';
const label = (p: DirectoryEntry) => p.realName?.trim() || p.displayName?.trim() || p.name?.trim() || p.id;

/**
 * Who `typed` names in `people`: one whose handle, display name or full name is exactly it
 * (any case); failing that, one whose first name is it. Pure; the refusal's words included.
 */
export function matchPerson(typed: string, people: readonly DirectoryEntry[]): PersonMatch {
  const mention = MENTION.exec(typed.trim());
  if (mention?.[1]) return { ok: true, id: mention[1] };
  const wanted = fold(typed.replace(/^@/, ''));
  const shown = `“${typed.trim().slice(0, 80)}”`;
  if (!wanted) return { ok: false, message: 'Say who: an @-mention of one person.' };
  const exact = people.filter((p) => [p.name, p.displayName, p.realName].some((n) => fold(n) === wanted));
  const found = exact.length
    ? exact
    : people.filter((p) => [p.displayName, p.realName].some((n) => firstWord(n) === wanted));
  const [one] = found;
  if (found.length === 1 && one) return { ok: true, id: one.id };
  if (!found.length)
    return { ok: false, message: `Nobody in this workspace is called ${shown}: pick the person with an @-mention.` };
  const names = found.slice(0, CANDIDATES_SHOWN).map(label);
  const more = found.length - names.length;
  const list =
    more > 0 ? `${names.join(', ')} and ${more} more` : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return { ok: false, message: `${shown} matches ${list}: pick one with an @-mention.` };
}

/** The resolver over Slack's Web API: users.list read whole, cached, refreshed on a miss. */
export function slackPeople(client: WebClient, logger: Logger, now: () => number = Date.now): PeopleResolver {
  let cache: { at: number; people: DirectoryEntry[] } | undefined;
  let reading: Promise<DirectoryEntry[]> | undefined;

  async function readDirectory(): Promise<DirectoryEntry[]> {
    const people: DirectoryEntry[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.users.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
      for (const m of res.members ?? []) {
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
    cache = { at: now(), people };
    return people;
  }

  // One read at a time: a burst of commands shares it.
  const directory = (): Promise<DirectoryEntry[]> => {
    reading ??= readDirectory().finally(() => {
      reading = undefined;
    });
    return reading;
  };

  return {
    async resolve(typed) {
      if (MENTION.test(typed.trim())) return matchPerson(typed, []);
      try {
        const fresh = cache && now() - cache.at < TTL_MS ? cache.people : await directory();
        const match = matchPerson(typed, fresh);
        if (match.ok || !cache || now() - cache.at < MISS_REFRESH_MS) return match;
        return matchPerson(typed, await directory());
      } catch (err) {
        logger.warn({ err }, 'could not read the workspace directory');
        return {
          ok: false,
          message: 'Slack’s directory could not be read just now: pick the person with an @-mention, or try again.',
        };
      }
    },
  };
}
