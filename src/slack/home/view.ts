/**
 * The App Home tab, for the person opening it: the withdrawals waiting for their decision
 * (with the same Approve / Reject buttons as the cards), their own open requests, the last
 * deposits, and whether the wallet service is reachable. Rendered from the store and the
 * withdrawal service; deciding stays with the handlers the card buttons already use.
 * The listeners are in ./index.ts.
 */
import type { KnownBlock, View } from '@slack/types';
import { ALERT_COLLECTIONS, type Alert } from '../../alerts/index.js';
import { slackDate } from '../../format/time.js';
import { hasRole } from '../../policy/people.js';
import type { WithdrawalRequest } from '../../withdrawals/index.js';
import { actions, context, divider, esc, header, section } from '../blocks.js';
import type { CommandDeps } from '../deps.js';
import { ACTIONS, amountText } from '../withdrawal-card.js';

/** Slack allows 100 blocks in a Home view; decisions get at most this many (3 blocks each). */
const MAX_DECISIONS = 15;
const LAST_DEPOSITS = 5;
/** Approve from the Home tab: its own action id, because the card's handler answers through the card's response_url. */
export const HOME_APPROVE = 'home_approve';
const OPEN_STATES = new Set(['pending', 'approved', 'executing', 'unknown']);

function requestLine(r: WithdrawalRequest): string {
  return `${amountText(r)} on ${r.network} to \`${r.destination.slice(0, 12)}…\` for ${esc(r.clientEmail)} · requested by <@${r.requester}> · *${r.state}* · \`${r.id.slice(0, 8)}\``;
}

/** `help` is the commands' help text (generated from their table in commands/). */
export async function homeView(deps: CommandDeps, userId: string, help: string, notice?: string): Promise<View> {
  const canApprove = await hasRole(deps.policy, 'approvers', userId, deps.groups);
  const waiting = canApprove ? await deps.withdrawals.awaitingDecisionBy(userId) : [];
  // Open requests first; with none open, the latest few so the outcome of the last one is at hand.
  const own = deps.withdrawals.list({ requester: userId });
  const open = own.filter((r) => OPEN_STATES.has(r.state));
  const mine = open.length ? open : own.slice(0, 3);
  const pending = deps.withdrawals.list({ state: 'pending' });
  const deposits = deps.store
    .find(ALERT_COLLECTIONS.alerts, (a) => a.kind === 'deposit')
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, LAST_DEPOSITS);
  const auth = deps.wallet.authState();

  const blocks: KnownBlock[] = [header('Treasury')];
  if (notice) blocks.push(section(notice));
  if (!canApprove) blocks.push(section(`*Pending approvals*: ${pending.length}`), context('You are not an approver in the treasury policy.'));
  else blocks.push(section(`*Waiting for your approval* (${waiting.length})`));
  if (canApprove && waiting.length === 0) blocks.push(context('Nothing right now.'));
  for (const r of waiting.slice(0, MAX_DECISIONS)) {
    blocks.push(section(requestLine(r)));
    blocks.push(
      actions(`home_decide_${r.id}`.slice(0, 255), [
        { text: 'Approve', actionId: HOME_APPROVE, value: r.id, style: 'primary' },
        // The card's Reject handler opens the reason modal, which works from the Home tab as well.
        { text: 'Reject…', actionId: ACTIONS.reject, value: r.id, style: 'danger' },
      ]),
    );
  }
  if (waiting.length > MAX_DECISIONS) blocks.push(context(`…and ${waiting.length - MAX_DECISIONS} more on their cards in <#${deps.policy.channels.approvals}>.`));
  blocks.push(divider());
  blocks.push(section(`*Your latest requests*\n${mine.slice(0, 10).map((r) => `• ${requestLine(r)}`).join('\n') || '_None._'}`));
  blocks.push(context(`${open.length} of yours open`));
  blocks.push(divider());
  const depositLine = (a: Alert) =>
    `• ${esc(a.amount ?? '?')} ${esc(a.currency ?? '')}${a.network ? ` on ${esc(a.network)}` : ''}${a.clientEmail ? ` for ${esc(a.clientEmail)}` : ''} · ${esc((a.status ?? 'status unknown').toLowerCase())} · seen ${slackDate(a.createdAt)}`;
  blocks.push(section(`*Latest deposits*\n${deposits.map(depositLine).join('\n') || '_None yet._'}`));
  blocks.push(divider());
  blocks.push(
    section(
      `*Wallet service*: ${auth.loggedIn ? ':large_green_circle: connected' : ':red_circle: not connected'} (${esc(deps.walletDescription)})` +
        (auth.loggedIn && auth.expiresAt ? ` · session until ${slackDate(auth.expiresAt)}` : ''),
    ),
  );
  blocks.push(divider());
  blocks.push(section(help));
  blocks.push(context(`Version ${deps.version}`));
  return { type: 'home', blocks };
}
