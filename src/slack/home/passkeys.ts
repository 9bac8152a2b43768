/**
 * Passkeys on the App Home: for approvers, while the policy asks for a code or a passkey at
 * some amount, how many they hold and a button that sends a single-use set-up link by DM (the
 * same as `/treasury passkey`).
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { thresholdAmount } from '../../format/fiat.js';
import { outside } from '../../format/outside.js';
import { utcMinute } from '../../format/time.js';
import { hasRole } from '../../policy/people.js';
import { actions, context, section } from '../blocks.js';
import type { CommandDeps } from '../deps.js';
import type { Listeners } from '../listeners.js';

type Client = App['client'];
type Publish = (client: Client, user: string, notice?: string) => Promise<void>;

export const PASSKEY_ENROL = 'home_passkey_enrol';

export async function passkeyHomeBlocks(deps: CommandDeps, user: string): Promise<KnownBlock[]> {
  const w = deps.policy.current().withdrawals;
  const asked = Object.keys(w.passkey_above).length + Object.keys(w.step_up_above).length;
  if (!asked || !(await hasRole(deps.policy.current(), 'approvers', user, deps.groups))) return [];
  const above = Object.entries(w.passkey_above).map(([key, amount]) => `above ${thresholdAmount(key, amount)}`);
  const need = above.length
    ? `Approving withdrawals ${outside(above.join(', '))} needs a passkey or security key.`
    : 'A passkey or security key can confirm your approvals instead of a code, bound to the withdrawal you saw.';
  const mine = deps.passkeys.enrolment.list(user);
  const held = mine.length
    ? context(
        `:key: Your passkeys: ${mine.map((c) => outside(c.name, 40)).join(', ')}. \`/treasury passkey list\` to manage them.`,
      )
    : undefined;
  return [
    section(`*Passkeys*\n${need}`),
    ...(held ? [held] : []),
    actions('home_passkey', [
      {
        text: mine.length ? 'Add a passkey' : 'Set up a passkey',
        actionId: PASSKEY_ENROL,
        value: 'enrol',
        style: 'primary',
      },
    ]),
  ];
}

export function registerPasskeyHome(app: Listeners, deps: CommandDeps, publish: Publish): void {
  app.action<BlockAction<ButtonAction>>(PASSKEY_ENROL, async ({ ack, body, client }) => {
    await ack();
    const user = body.user.id;
    try {
      if (!(await hasRole(deps.policy.current(), 'approvers', user, deps.groups)))
        return await publish(client, user, ':no_entry: Only approvers set up passkeys.');
      const sent = await deps.passkeys.enrolment.sendLink(user);
      await publish(
        client,
        user,
        `:key: A link to set up a passkey is in your direct messages. It works once, until ${utcMinute(sent.expiresAt)}.`,
      );
    } catch (err) {
      deps.logger.error({ err }, 'passkey link from the App Home failed');
      await publish(client, user, ':warning: Something went wrong on our side; no link was sent. Try again.');
    }
  });
}
