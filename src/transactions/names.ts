/**
 * People's names for the files an accountant reads: a Slack user id means nothing outside
 * Slack. Each distinct person is looked up once per export (users.info), a few at a time, each
 * bounded in time; a person Slack cannot name in time stays their id, and the file is still made.
 */
import type { WebClient } from '@slack/web-api';

const LOOKUP_TIMEOUT_MS = 3_000;
const AT_ONCE = 4;

async function nameOf(users: Pick<WebClient, 'users'>['users'], id: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const res = await Promise.race([
      users.info({ user: id }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), LOOKUP_TIMEOUT_MS);
      }),
    ]);
    const u = res.user;
    return u?.profile?.real_name || u?.real_name || u?.profile?.display_name || u?.name || undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** A `names` source for exports (export.ts ExportFacts). */
export function slackNames(slack: Pick<WebClient, 'users'>) {
  return async (ids: string[]): Promise<ReadonlyMap<string, string>> => {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += AT_ONCE) {
      const batch = ids.slice(i, i + AT_ONCE);
      const found = await Promise.all(batch.map((id) => nameOf(slack.users, id)));
      batch.forEach((id, j) => {
        if (found[j]) out.set(id, found[j]!);
      });
    }
    return out;
  };
}
