/**
 * The App Home tab's listeners: published when opened, re-published after an approval from it
 * (the Home tab has no ephemeral messages, so the outcome is shown at its top), and after any
 * change of a withdrawal it shows, wherever the decision was made (./refresh.ts).
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Listeners } from '../listeners.js';
import { outside } from '../../format/outside.js';
import type { CommandDeps } from '../deps.js';
import { stepUpGate } from '../step-up-approve.js';
import { homeRefresher, type HomeRefresher } from './refresh.js';
import { registerStepUpHome } from './step-up.js';
import { registerPasskeyHome } from './passkeys.js';
import { HOME_APPROVE, homeView, type HelpFor } from './view.js';

type Client = App['client'];

export function homePublisher(deps: CommandDeps, help: HelpFor) {
  return async (client: Client, user: string, notice?: string): Promise<void> => {
    try {
      await client.views.publish({
        user_id: user,
        view: await homeView(deps, user, help, notice),
      });
    } catch (err) {
      deps.logger.warn({ err }, 'could not publish the App Home');
    }
  };
}

type Publish = ReturnType<typeof homePublisher>;

export function appHomeOpened(publish: Publish, refresher?: HomeRefresher) {
  return async ({
    event,
    client,
  }: Pick<SlackEventMiddlewareArgs<'app_home_opened'>, 'event'> & { client: Client }): Promise<void> => {
    if (event.tab !== 'home') return;
    refresher?.opened(event.user);
    await publish(client, event.user);
  };
}

/** The withdrawal service decides (eligibility, quorum, sending) exactly as for a click on the card. */
export function homeApprove(deps: CommandDeps, publish: Publish) {
  return async ({
    ack,
    body,
    action,
    client,
  }: Pick<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>, 'ack' | 'body' | 'action'> & {
    client: Client;
  }): Promise<void> => {
    await ack();
    let notice: string | undefined;
    try {
      // Above the policy's step_up_above: the code modal, as from the card.
      const gate = await stepUpGate(deps, {
        requestId: action.value ?? '',
        user: body.user.id,
        triggerId: body.trigger_id,
        client,
      });
      if (gate.kind === 'opened') return;
      if (gate.kind === 'passkey')
        return await publish(
          client,
          body.user.id,
          `:key: This approval needs your passkey: <${gate.url}|Confirm with your passkey> (works once, for 5 minutes; if the page cannot use your passkey, open the link in your system browser).`,
        );
      if (gate.kind === 'refused') return await publish(client, body.user.id, `:no_entry: ${outside(gate.message)}`);
      const outcome = await deps.withdrawals.approve(action.value ?? '', body.user.id);
      notice = outcome.ok ? ':white_check_mark: Your approval was recorded.' : `:no_entry: ${outside(outcome.message)}`;
    } catch (err) {
      deps.logger.error({ err }, 'approval from the App Home failed');
      notice = ':warning: Something went wrong on our side; nothing was changed. Try again.';
    }
    await publish(client, body.user.id, notice);
  };
}

export function registerHome(app: Listeners, deps: CommandDeps, help: HelpFor): void {
  const publish = homePublisher(deps, help);
  const refresher = homeRefresher({ publish: (user, notice) => publish(app.client, user, notice), now: deps.now });
  deps.onWithdrawalChange?.((event) => refresher.changed(event));
  app.event('app_home_opened', appHomeOpened(publish, refresher));
  app.action<BlockAction<ButtonAction>>(HOME_APPROVE, homeApprove(deps, publish));
  registerStepUpHome(app, deps, publish);
  registerPasskeyHome(app, deps, publish);
}
