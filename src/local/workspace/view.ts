/**
 * What one person sees: the state the page renders, computed from the Web API's model for
 * that person only (their ephemerals, their DM, their open modals). Reads, never writes.
 */
import type { Channel, Person } from '../directory.js';
import type { Json } from '../requests.js';
import { SLACK_IDS } from '../slack-ids.js';
import type { FakeMessage, FakeSlack } from '../slack-api.js';
import type { ViewErrors } from './state.js';

export interface Sight {
  api: Pick<FakeSlack, 'file' | 'visibleEphemerals' | 'dmChannel' | 'channel' | 'openViews' | 'homeTab'>;
  /** The policy's channels and any other the app posted to. */
  directory: () => Channel[];
  people: () => Person[];
  viewErrors: ViewErrors;
  commands: () => string[];
  /** Whether the embedded sandbox is there (the page shows the deposit form then). */
  sandbox: boolean;
}

function messageView(api: Sight['api'], m: FakeMessage): Json {
  return {
    ts: m.ts,
    text: m.text,
    blocks: m.blocks,
    attachments: m.attachments,
    subtype: m.subtype,
    edited: Boolean(m.edited),
    thread_ts: m.thread_ts,
    files: (m.files ?? []).map((f) => {
      const file = api.file(f.id);
      return {
        id: f.id,
        name: f.name,
        title: f.title,
        image: /\.(png|jpe?g|gif)$/i.test(f.name),
        size: file?.content.length ?? 0,
      };
    }),
  };
}

export function stateFor(s: Sight, user: string): Json {
  const { api } = s;
  const ephemerals = api.visibleEphemerals(user);
  const dm = api.dmChannel(user);
  const channels = [...s.directory(), { id: dm, name: 'Treasury (app)', kind: 'dm' as const }].map((c) => {
    const all = api.channel(c.id);
    const top = all.filter((m) => !m.thread_ts || m.thread_ts === m.ts);
    return {
      ...c,
      messages: top.map((m) => ({
        ...messageView(api, m),
        replies: all.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts).map((r) => messageView(api, r)),
      })),
      ephemerals: ephemerals
        .filter((e) => e.channel === c.id)
        .map((e) => ({ ts: e.ts, text: e.text, blocks: e.blocks, attachments: e.attachments, via: e.via })),
    };
  });
  const modals = api.openViews(user).map((v) => ({ ...v, errors: s.viewErrors.get(v.id) ?? {} }));
  return {
    me: user,
    people: s.people(),
    channels,
    home: api.homeTab(user) ?? null,
    modals,
    sandbox: s.sandbox,
    commands: s.commands(),
    // The page opens this workspace's permalinks itself (the real host would be an error page).
    teamDomain: SLACK_IDS.teamDomain,
  };
}
