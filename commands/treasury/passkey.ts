/**
 * `/treasury passkey`: a single-use link to set up a passkey or security key, sent by DM (the
 * link is drawn from its record by the outbox, durable like any message); `passkey list` shows
 * your own, `passkey remove <name>` removes one; `passkey revoke @person` is an admin's, through
 * the same governed path as `stepup reset` (never one's own, the person told by DM, audited).
 */
import { outside } from '../../src/format/outside.js';
import { utcMinute } from '../../src/format/time.js';
import { hasRole } from '../../src/policy/people.js';
import { wordsKeepingMentions } from '../../src/slack/text.js';
import type { VerbRun } from './verb.js';

type Ctx = Parameters<VerbRun['run']>[0];
const say = (ctx: Ctx, text: string) => ctx.respond({ response_type: 'ephemeral', text });

export const passkeyVerb: VerbRun = {
  run: async (ctx) => {
    if (ctx.args.length > 1)
      return void (await say(
        ctx,
        ':warning: Usage: `/treasury passkey` (a set-up link by DM), `/treasury passkey list`, `/treasury passkey remove <name>`.',
      ));
    const sent = await ctx.deps.passkeys.enrolment.sendLink(ctx.userId);
    await say(
      ctx,
      `:key: A link to set up a passkey or security key is in your direct messages. It works once, until ${utcMinute(sent.expiresAt)}.`,
    );
  },
};

export const passkeyListVerb: VerbRun = {
  run: async (ctx) => {
    const mine = ctx.deps.passkeys.enrolment.list(ctx.userId);
    if (!mine.length) return void (await say(ctx, 'You have no passkeys. Type `/treasury passkey` to set one up.'));
    const lines = mine.map(
      (c) =>
        `• *${outside(c.name, 40)}*: set up ${utcMinute(c.createdAt)}${c.lastUsedAt ? `, last used ${utcMinute(c.lastUsedAt)}` : ', never used'}`,
    );
    await say(ctx, `Your passkeys (${mine.length}):\n${lines.join('\n')}`);
  },
};

export const passkeyRemoveVerb: VerbRun = {
  run: async (ctx) => {
    const name = ctx.args.slice(2).join(' ').trim();
    if (!name) return void (await say(ctx, ':warning: Say which one. Usage: `/treasury passkey remove <name>`'));
    const removed = await ctx.deps.passkeys.enrolment.remove(ctx.userId, name);
    await say(
      ctx,
      removed
        ? `:white_check_mark: Your passkey “${outside(name, 40)}” is removed: it no longer confirms approvals.`
        : `:warning: You have no passkey named “${outside(name, 40)}”. \`/treasury passkey list\` shows yours.`,
    );
  },
};

export const passkeyRevokeVerb: VerbRun = {
  run: async (ctx) => {
    const named = wordsKeepingMentions(ctx.text).slice(2).join(' ');
    const usage = 'Usage: `/treasury passkey revoke @person`';
    if (!named) return void (await say(ctx, `:warning: Say whose passkeys to revoke. ${usage}`));
    const target = await ctx.deps.people.resolve(named);
    if (!target.ok) return void (await say(ctx, `:warning: ${outside(target.message, 600)}\n${usage}`));
    const isAdmin = await hasRole(ctx.deps.policy.current(), 'admins', ctx.userId, ctx.deps.groups);
    const who = target.byName
      ? `\nFound by the name you typed: ${outside(target.byName.name, 80)} (@${outside(target.byName.handle, 80)}).`
      : '';
    const done = await ctx.deps.passkeys.enrolment.revoke(ctx.userId, target.id, isAdmin);
    if (!done.ok) {
      const why =
        done.reason === 'none' ? `<@${target.id}> has no passkeys: there is nothing to revoke.` : done.message;
      return void (await say(ctx, `:no_entry: ${why}${who}`));
    }
    await say(
      ctx,
      `:white_check_mark: ${done.count} passkey${done.count === 1 ? '' : 's'} of <@${target.id}> revoked: they no longer confirm approvals. They have been told by DM.${who}`,
    );
  },
};
