/**
 * The App Home tab, for the person opening it, in the order they need it: their own queue
 * first (withdrawals waiting for their decision, with expiry, approvals left, a link to the
 * card and the same Approve / Reject buttons; then their own open requests), then the last
 * deposits, then the commands they may use. No diagnostics: the wallet service's address and
 * the like are in `/treasury status` for admins. Rendered from the store and the withdrawal
 * service; deciding stays with the handlers the card buttons already use.
 * The listeners are in ./index.ts.
 */
import type { KnownBlock, View } from '@slack/types';
import { ALERT_COLLECTIONS, type Alert } from '../../alerts/index.js';
import { currentFreeze } from '../../freeze/state.js';
import { formatAmount } from '../../format/amount.js';
import { outside } from '../../format/outside.js';
import { slackDate } from '../../format/time.js';
import { hasRole } from '../../policy/people.js';
import type { WithdrawalRequest, WithdrawalState } from '../../withdrawals/index.js';
import { statusLabel } from '../alert-trust-messages.js';
import { actions, context, divider, header, link, packLines, section, shorten } from '../blocks.js';
import type { CommandDeps } from '../deps.js';
import { ACTIONS, amountText, cardKey, stateLabel } from '../withdrawal/index.js';
import { teamQueue } from '../../withdrawals/queue.js';
import { cappedQueue } from '../queue-words.js';
import { stepUpHomeBlocks } from './step-up.js';
import { passkeyHomeBlocks } from './passkeys.js';
import { balancesBlocks } from './balances.js';
import { approveButton, decisionFacts } from './decide.js';
import { delegationIn } from '../../away/service.js';
import { awayBlocks } from './away.js';

/** Slack allows 100 blocks in a Home view; decisions get at most this many (2 blocks each). */
const MAX_DECISIONS = 15;
/** The team's queue: two lines a row, packed into a few sections (3000 characters each). */
const MAX_QUEUE_ROWS = 15;
const LAST_DEPOSITS = 5;
/** Approve from the Home tab: its own action id, because the card's handler answers through the card's response_url. */
export const HOME_APPROVE = 'home_approve';
const OPEN_STATES = new Set<WithdrawalState>(['pending', 'approved', 'executing', 'unknown']);

/** The help text for this person: admins' commands only for admins. A plain string is shown to everyone. */
export type HelpFor = string | ((forAdmin: boolean) => string);

/** "⏳ 0 of 1 approval, 1 more needed · expires …": the card's own status words, then what is left. */
function progress(r: WithdrawalRequest): string {
  if (r.state !== 'pending') return stateLabel(r);
  const left = Math.max(0, r.tier.approvals - r.approvals.length);
  return `${stateLabel(r)}${left ? `, ${left} more needed` : ''} · expires ${slackDate(r.expiresAt)}`;
}

async function cardLink(deps: CommandDeps, r: WithdrawalRequest): Promise<string> {
  const posted = deps.outbox.message(cardKey(r.id));
  if (!posted?.channel || !posted.ts)
    return `the card in <#${deps.policy.current().channels.approvals}> is being posted`;
  const url =
    (await deps.cardPermalink(r.id).catch(() => undefined)) ??
    `https://slack.com/app_redirect?channel=${encodeURIComponent(posted.channel)}`;
  return link(url, 'Open the card');
}

async function requestLine(deps: CommandDeps, r: WithdrawalRequest, who: 'requester' | 'mine'): Promise<string> {
  const what = `*${outside(amountText(r))}* on ${outside(r.network)} to \`${outside(shorten(r.destination, 8, 6))}\`, from client wallet ${outside(r.clientEmail)}`;
  const from = who === 'requester' ? ` · requested by <@${r.requester}>` : '';
  return `${what}${from}\n${progress(r)} · ${await cardLink(deps, r)}`;
}

/** Every open request of the team, what it still needs by name (the domain's rules), held and frozen ones marked. */
function teamQueueBlocks(deps: CommandDeps): KnownBlock[] {
  const queue = teamQueue(
    deps.withdrawals.list(),
    deps.policy.current(),
    deps.now(),
    !!currentFreeze(deps.store),
    delegationIn(deps.store, deps.now()),
  );
  const lines = cappedQueue(queue, MAX_QUEUE_ROWS, 'in `/treasury pending`.');
  if (!lines.length) return [section('*Waiting on the team* (0)\n_Nothing is waiting._')];
  return [section(`*Waiting on the team* (${queue.length})`), ...packLines(lines)];
}

/** `help` is the commands' help text (generated from their table in commands/). */
export async function homeView(deps: CommandDeps, userId: string, help: HelpFor, notice?: string): Promise<View> {
  // An approver, or standing in for one who is away (src/away): their decisions are asked here too.
  const canApprove =
    (await hasRole(deps.policy.current(), 'approvers', userId, deps.groups)) ||
    delegationIn(deps.store, deps.now()).delegatorsOf(userId).length > 0;
  const isAdmin = await hasRole(deps.policy.current(), 'admins', userId, deps.groups);
  const waiting = canApprove ? await deps.withdrawals.awaitingDecisionBy(userId) : [];
  // Open requests first; with none open, the latest few so the outcome of the last one is at hand.
  const own = deps.withdrawals.list({ requester: userId });
  const open = own.filter((r) => OPEN_STATES.has(r.state));
  const mine = (open.length ? open : own.slice(0, 3)).slice(0, 10);
  const deposits = deps.store
    .find(ALERT_COLLECTIONS.alerts, (a) => a.kind === 'deposit')
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, LAST_DEPOSITS);

  const blocks: KnownBlock[] = [header('Treasury')];
  if (notice) blocks.push(section(notice));
  const frozen = currentFreeze(deps.store);
  if (frozen)
    blocks.push(
      context(
        `:octagonal_sign: Frozen by <@${frozen.by}>: ${outside(frozen.reason)} · No withdrawal is sent until two admins unfreeze.`,
      ),
    );
  blocks.push(...awayBlocks(deps, userId));
  if (canApprove) {
    blocks.push(section(`*Waiting for your decision* (${waiting.length})`));
    if (waiting.length === 0) blocks.push(context('Nothing right now.'));
    for (const r of waiting.slice(0, MAX_DECISIONS)) {
      // The same facts as the card: its risk flags and the note, and Approve asks to confirm.
      blocks.push(section(`${await requestLine(deps, r, 'requester')}${decisionFacts(r)}`));
      const row = actions(`home_decide_${r.id}`.slice(0, 255), [
        { text: 'Approve', actionId: HOME_APPROVE, value: r.id, style: 'primary' },
        // The card's Reject handler opens the reason modal, which works from the Home tab as well.
        { text: 'Reject…', actionId: ACTIONS.reject, value: r.id, style: 'danger' },
      ]);
      blocks.push(approveButton(row, r));
    }
    if (waiting.length > MAX_DECISIONS)
      blocks.push(
        context(
          `…and ${waiting.length - MAX_DECISIONS} more on their cards in <#${deps.policy.current().channels.approvals}>.`,
        ),
      );
    blocks.push(...(await stepUpHomeBlocks(deps, userId)));
    blocks.push(...(await passkeyHomeBlocks(deps, userId)));
  } else {
    const pending = deps.withdrawals.pendingCount();
    blocks.push(
      context(
        `${pending} withdrawal${pending === 1 ? ' is' : 's are'} waiting for approval. You do not approve withdrawals.`,
      ),
    );
  }
  blocks.push(divider(), ...teamQueueBlocks(deps), divider());
  const mineLines = await Promise.all(mine.map(async (r) => `• ${await requestLine(deps, r, 'mine')}`));
  blocks.push(
    section(`*${open.length ? 'Your open requests' : 'Your latest requests'}*\n${mineLines.join('\n') || '_None._'}`),
  );
  blocks.push(divider());
  // A deposit told only by a notification is "reported", never confirmed, until the wallet's history shows it.
  const depositLine = (a: Alert) =>
    `• *${outside(a.amount ? formatAmount(a.amount, a.currency) : 'amount not given', 120)}*${a.network ? ` on ${outside(a.network, 40)}` : ''}${a.clientEmail ? ` for ${outside(a.clientEmail)}` : ''} · ${statusLabel(a)} · ${slackDate(a.createdAt)}`;
  blocks.push(section(`*Latest deposits*\n${deposits.map(depositLine).join('\n') || '_None yet._'}`));
  blocks.push(...(await balancesBlocks(deps)), divider());
  blocks.push(section(typeof help === 'string' ? help : help(isAdmin)));
  const auth = deps.wallet.authState();
  blocks.push(
    context(
      `${auth.loggedIn ? 'Connected to the wallet service' : ':red_circle: Not connected to the wallet service right now'} · version ${outside(deps.version)}`,
    ),
  );
  return { type: 'home', blocks };
}
