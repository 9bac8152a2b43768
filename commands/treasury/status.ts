/**
 * `/treasury status`: whether everything is working. Admins see the details (wallet account,
 * store, webhook, verification, queues, prices, jobs); everyone else one line in words.
 */
import { utcMinute } from '../../src/format/time.js';
import { outside } from '../../src/format/outside.js';
import { currentFreeze } from '../../src/freeze/state.js';
import { hasRole } from '../../src/policy/people.js';
import { context, fields, header, section } from '../../src/slack/blocks.js';
import { jobStatusBlocks, storeSizeLine } from '../../src/slack/job-messages.js';
import { priceStatusText } from '../../src/slack/price-words.js';
import { screeningProblem, screeningStatusText } from '../../src/slack/screening-words.js';
import { storeUnavailableMessage, userMessage } from '../../src/slack/user-errors.js';
import { isWalletError } from '../../src/wallet/errors.js';
import { registrationStatus } from '../../src/webhooks/registration.js';
import type { CommandDeps } from '../deps.js';
import type { VerbRun } from './verb.js';
import { verificationStatusFields } from './verification.js';
import { webhookStatusField } from './webhook-rotate.js';

function storeLine(h: ReturnType<CommandDeps['store']['health']>): string {
  return h.writable ? '' : `\n:red_circle: ${storeUnavailableMessage(h.error)} (since ${utcMinute(h.since)})`;
}

function fmtBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

/**
 * `/treasury status` for someone who is not an admin: one line, in words. What is wrong, if
 * anything, without the details (accounts, URLs, queue depths) that are for admins.
 */
async function statusLine(deps: CommandDeps): Promise<string> {
  const problems: string[] = [];
  let wallet = deps.wallet.authState();
  let why = 'the wallet service cannot be reached';
  if (!wallet.loggedIn) {
    try {
      await deps.wallet.login();
      wallet = deps.wallet.authState();
    } catch (err) {
      // The kind in words; the service's own message and the details are in the admins' status.
      if (isWalletError(err) && err.kind === 'auth')
        why = 'the app cannot sign in to the wallet service (an admin needs to check its credentials)';
      else if (isWalletError(err) && err.kind === 'kyb')
        why = 'the wallet service has not verified the merchant account yet';
    }
  }
  if (!wallet.loggedIn) problems.push(`${why}, so addresses, transactions and withdrawals are unavailable`);
  if (!deps.store.health().writable)
    problems.push('the app cannot save right now, so nothing can be requested or approved');
  const hook = registrationStatus(deps.store);
  if (hook && (!hook.ok || !deps.webhookRotation.isCurrent(hook)))
    problems.push('the wallet service cannot notify us of deposits (an admin can see why with `/treasury status`)');
  const frozen = currentFreeze(deps.store);
  if (frozen) problems.push(`sends are frozen by <@${frozen.by}>: ${outside(frozen.reason)}`);
  const stale = screeningProblem(deps.screening?.status(), deps.policy.current().screening.stale_block_above);
  if (stale) problems.push(stale);
  const unknown = deps.withdrawals.list({ state: 'unknown' }).length;
  if (unknown)
    problems.push(`${unknown} withdrawal${unknown === 1 ? ' has' : 's have'} an unknown outcome and must be checked`);
  const waiting = deps.withdrawals.pendingCount();
  const queue = waiting ? ` ${waiting} withdrawal${waiting === 1 ? ' is' : 's are'} waiting for approval.` : '';
  if (!problems.length) return `:large_green_circle: All systems normal.${queue}`;
  const said = problems.join('; ');
  return `:red_circle: ${said[0]!.toUpperCase()}${said.slice(1)}.${queue}`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const statusVerb: VerbRun = {
  run: async ({ deps, respond, userId }) => {
    if (!(await hasRole(deps.policy.current(), 'admins', userId, deps.groups))) {
      const line = await statusLine(deps);
      return void (await respond({ response_type: 'ephemeral', text: line }));
    }
    let wallet = deps.wallet.authState();
    let walletLine: string;
    if (!wallet.loggedIn) {
      try {
        await deps.wallet.login();
        wallet = deps.wallet.authState();
      } catch (err) {
        walletLine = userMessage(err, 'Login');
      }
    }
    walletLine ??= wallet.loggedIn
      ? `:large_green_circle: logged in as ${outside(wallet.email)}; token expires ${utcMinute(wallet.expiresAt)}`
      : ':red_circle: not logged in';
    const s = deps.store.stats();
    const hook = registrationStatus(deps.store);
    const extra: Array<[string, string]> = [
      ['Webhook', webhookStatusField(deps, hook)],
      ...verificationStatusFields(deps),
      ['Pending approvals', String(deps.withdrawals.pendingCount())],
      ['Outbox', `${count(deps.outbox.pending(), 'message')} or file deletions waiting for Slack`],
      ['Notifications of unknown shape', outside(deps.alerts.unknownSummary().text)],
    ];
    await respond({
      response_type: 'ephemeral',
      text: 'Treasury status',
      blocks: [
        header('Treasury status'),
        fields([
          ['Wallet service', `${deps.walletDescription}\n${walletLine}`],
          [
            'Store',
            `${s.records} records · ${fmtBytes(s.snapshotBytes + s.journalBytes)} on disk${storeLine(deps.store.health())}\n${storeSizeLine(s, deps.store.counts())}`,
          ],
          ...extra,
          ['Version', deps.version],
        ]),
        section(
          `*Prices*\n${priceStatusText(deps.prices.state(), deps.policy.current().valuation.max_age, deps.now())}`,
        ),
        section(
          `*Sanctions screening*\n${screeningStatusText(deps.screening?.status(), deps.policy.current().screening.stale_block_above)}`,
        ),
        ...jobStatusBlocks(deps.scheduler.status()),
        context(`Slack mode: ${deps.config.slack.mode}`),
      ],
    });
  },
};
