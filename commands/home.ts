/**
 * The App Home tab: what the app does, the commands with examples, and what is waiting
 * for this person (approvals they could give, their own open requests).
 */
import type { App } from '@slack/bolt';
import type { View } from '@slack/types';
import { hasRole } from '../src/policy/people.js';
import { context, divider, header, section } from '../src/slack/blocks.js';
import { amountText } from './withdraw-card.js';
import { helpText } from './treasury.js';
import type { CommandDeps } from './deps.js';

export async function homeView(deps: CommandDeps, userId: string): Promise<View> {
  const pending = deps.withdrawals.list({ state: 'pending' });
  const canApprove = await hasRole(deps.policy, 'approvers', userId, deps.groups);
  const waitingForMe = canApprove ? await deps.withdrawals.awaitingDecisionBy(userId) : [];
  const mine = deps.withdrawals.list({ requester: userId, limit: 5 });
  const line = (r: (typeof pending)[number]) => `• ${amountText(r)} on ${r.network} to \`${r.destination.slice(0, 10)}…\` · *${r.state}* · \`${r.id.slice(0, 8)}\``;
  return {
    type: 'home',
    blocks: [
      header('Treasury'),
      section(helpText()),
      divider(),
      section(
        canApprove
          ? `*Waiting for your approval* (${waitingForMe.length})\n${waitingForMe.slice(0, 10).map(line).join('\n') || '_Nothing right now._'}\nApprove them on their cards in <#${deps.policy.channels.approvals}>.`
          : `*Pending approvals*: ${pending.length}`,
      ),
      section(`*Your latest requests*\n${mine.map(line).join('\n') || '_None._'}`),
      context(`Wallet service: ${deps.walletDescription} · version ${deps.version}`),
    ],
  };
}

export function register(app: App, deps: CommandDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    try {
      await client.views.publish({ user_id: event.user, view: await homeView(deps, event.user) });
    } catch (err) {
      deps.logger.warn({ err }, 'could not publish the App Home');
    }
  });
}
