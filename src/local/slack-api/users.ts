/**
 * Who is who: auth.test and api.test, users.info (a synthesised user under any overrides),
 * users.list (the users the workspace knows, paged by cursor as Slack pages it),
 * usergroups.users.list, and apps.connections.open for Socket Mode.
 */
import { SLACK_IDS } from '../slack-ids.js';
import { ApiError, requireString } from './args.js';
import type { Handler, SlackState } from './state.js';
import type { SlackUser } from './types.js';

export function identityHandlers(s: SlackState): Record<string, Handler> {
  return {
    'api.test': (args) => ({ args }),

    'auth.test': () => ({
      url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
      team: SLACK_IDS.teamName,
      user: SLACK_IDS.botName,
      team_id: SLACK_IDS.teamId,
      user_id: SLACK_IDS.botUserId,
      bot_id: SLACK_IDS.botId,
      app_id: SLACK_IDS.appId,
      is_enterprise_install: false,
    }),

    'users.info': (args) => {
      const id = requireString(args, 'user', 'user_not_found');
      const override = s.users.get(id);
      if (!override && !/^[UW][A-Z0-9]+$/.test(id)) throw new ApiError('user_not_found');
      return { user: synthUser(id, override) };
    },

    'users.list': (args) => {
      const ids = [...s.users.keys()].sort();
      const limit = Math.min(Math.max(Number(args.limit) || 100, 1), 1000);
      const start = typeof args.cursor === 'string' && args.cursor ? Number.parseInt(args.cursor, 10) : 0;
      if (!Number.isInteger(start) || start < 0) throw new ApiError('invalid_cursor');
      const page = ids.slice(start, start + limit);
      const next = start + limit < ids.length ? String(start + limit) : '';
      return {
        members: page.map((id) => synthUser(id, s.users.get(id))),
        response_metadata: { next_cursor: next },
      };
    },

    'usergroups.users.list': (args) => {
      const group = requireString(args, 'usergroup', 'no_such_subteam');
      const members = s.usergroups.get(group);
      if (!members) throw new ApiError('no_such_subteam');
      return { users: [...members] };
    },

    'apps.connections.open': () => {
      if (!s.socket) {
        // invalid_auth is one of the errors SocketModeClient treats as unrecoverable: start() fails fast instead of
        // retrying forever. The [ERROR] line is printed by WebClient's logger.
        throw new ApiError('invalid_auth', [
          '[ERROR] fake-slack: no socket fake attached (use startFakeSlack({ socket }) or attachSocket)',
        ]);
      }
      return { url: s.socket.issueUrl() };
    },
  };
}

function synthUser(id: string, override: Partial<SlackUser> | undefined): SlackUser {
  const name = override?.name ?? (id === SLACK_IDS.userId ? SLACK_IDS.userName : `user-${id.toLowerCase()}`);
  const realName =
    override?.real_name ?? name.replace(/(^|[-_.])(\w)/g, (_m, _s: string, c: string) => ` ${c.toUpperCase()}`).trim();
  return {
    id,
    team_id: SLACK_IDS.teamId,
    name,
    real_name: realName,
    deleted: false,
    is_bot: false,
    is_admin: false,
    is_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    ...override,
    profile: {
      real_name: realName,
      display_name: name,
      email: `${name}@example.com`,
      team: SLACK_IDS.teamId,
      ...(override?.profile ?? {}),
    },
  };
}
