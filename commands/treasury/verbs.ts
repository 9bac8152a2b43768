/**
 * What each /treasury verb does. Who may use it, and its help line, are in ../table.ts;
 * verbs that change or reveal configuration are for `people.admins`.
 */
import type { RespondFn } from '@slack/bolt';
import type { App } from '@slack/bolt';
import { auditCsv, recentAudit, verifyAudit } from '../../src/audit/index.js';
import { formatAmount } from '../../src/format/amount.js';
import { networkWithStandard } from '../../src/format/network.js';
import { utcDay, utcMinute } from '../../src/format/time.js';
import { hasRole } from '../../src/policy/people.js';
import { isWalletError } from '../../src/wallet/errors.js';
import { context, fields, header, mention, packLines, section, shorten } from '../../src/slack/blocks.js';
import { priceStatusText } from '../../src/slack/price-words.js';
import { formatFiat } from '../../src/format/fiat.js';
import { outside, outsideCode } from '../../src/format/outside.js';
import { dmChannel } from '../../src/slack/guard.js';
import { storeUnavailableMessage, userMessage } from '../../src/slack/user-errors.js';
import { maskWebhookPaths, registrationStatus } from '../../src/webhooks/registration.js';
import { auditRowText } from '../../src/slack/audit-words.js';
import { jobStatusBlocks, storeSizeLine } from '../../src/slack/job-messages.js';
import type { CommandDeps } from '../deps.js';
import { helpText } from '../help.js';
import { governanceBlocks } from './policy-change.js';
import { currentFreeze } from '../../src/freeze/state.js';
import { FREEZE_VERBS } from './freeze.js';
import { verificationStatusFields } from './verification.js';
import type { VerbName } from '../table.js';
import { stepUpResetVerb } from './step-up-reset.js';
import { passkeyListVerb, passkeyRemoveVerb, passkeyRevokeVerb, passkeyVerb } from './passkey.js';
import { balancesVerb } from './balances.js';
import { pendingVerb } from './pending.js';
import { withdrawalVerb } from './withdrawal.js';
import { digestVerb } from './digest.js';
import { NOT_CURRENT, webhookRotateVerb, webhookStatusField } from './webhook-rotate.js';

interface VerbContext {
  deps: CommandDeps;
  args: string[];
  /** The command's text as Slack sent it, for a verb that takes a person (`wordsKeepingMentions`). */
  text: string;
  userId: string;
  respond: RespondFn;
  client: App['client'];
  /** Where the command was typed (the digest's chart is uploaded there). */
  channelId: string;
}

export interface VerbRun {
  run(ctx: VerbContext): Promise<void>;
}

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

/** What the allowlist's mode means for a request, in words. */
const ALLOWLIST_MODE: Record<'enforce' | 'warn' | 'off', string> = {
  enforce: 'enforce: only the destinations below can be paid; any other is refused',
  warn: 'warn: unlisted destinations are allowed, with a warning on the card',
  off: 'off: destinations are not checked',
};

export const VERB_RUNS: Record<VerbName, VerbRun> = {
  help: {
    // Admin commands are listed to admins only.
    run: async ({ deps, respond, userId }) =>
      void (await respond({
        response_type: 'ephemeral',
        text: helpText(await hasRole(deps.policy.current(), 'admins', userId, deps.groups)),
      })),
  },
  status: {
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
          ...jobStatusBlocks(deps.scheduler.status()),
          context(`Slack mode: ${deps.config.slack.mode}`),
        ],
      });
    },
  },
  policy: {
    run: async ({ deps, respond }) => {
      const p = deps.policy.current();
      const who = (xs: string[]) => (xs.length ? xs.map((x) => mention(x, 'everyone')).join(', ') : 'nobody');
      const tiers = Object.entries(p.withdrawals.tiers)
        .map(([cur, ts]) => {
          // Tiers are ordered by max: each covers amounts above the previous one's max.
          let below: string | undefined;
          // The `default` tiers apply to every currency without its own: their amounts carry no unit.
          const unit = cur === 'default' ? undefined : cur;
          // `value` tiers are in USD: the fiat format.
          const amt = (a: string) => (cur === 'value' ? formatFiat(a) : formatAmount(a, unit));
          const steps = ts.map((t) => {
            const range = t.max ? `up to ${amt(t.max)}` : below ? `above ${amt(below)}` : 'any amount';
            below = t.max ?? below;
            return `${range}: ${t.approvals} approval${t.approvals > 1 ? 's' : ''}${t.must_include.length ? `, including ${who(t.must_include)}` : ''}`;
          });
          const name = cur === 'value' ? 'By value (every currency without its own)' : (unit ?? 'Any other currency');
          return `*${name}*: ${steps.join('; ')}`;
        })
        .join('\n');
      const limits =
        Object.entries(p.withdrawals.daily_limit)
          .map(([c, v]) => (c === 'value' ? `${formatFiat(v)} in value, every currency` : formatAmount(v, c)))
          .join(', ') || 'none';
      const perCurrency = (rec: Record<string, string>) =>
        Object.entries(rec)
          .map(([c, v]) =>
            c === 'default'
              ? `${formatAmount(v)} (any other currency)`
              : c === 'value'
                ? `${formatFiat(v)} in value`
                : formatAmount(v, c),
          )
          .join(', ') || 'none';
      const allow = p.withdrawals.allowlist;
      const listed = allow.addresses.map(
        (a) => `• ${outside(a.label)}: ${outsideCode(shorten(a.address, 8, 6))} on ${networkWithStandard(a.network)}`,
      );
      await respond({
        response_type: 'ephemeral',
        text: 'Treasury policy',
        blocks: [
          header('Treasury policy'),
          ...governanceBlocks(deps),
          section(`*Approvals channel* <#${p.channels.approvals}> · *Alerts channel* <#${p.channels.alerts}>`),
          section(
            `*Viewers* ${who(p.people.viewers)}\n*Requesters* ${who(p.people.requesters)}\n*Approvers* ${who(p.people.approvers)}\n*Admins* ${who(p.people.admins)}`,
          ),
          section(
            `*Approvals needed*\n${tiers}\n*Daily limits (rolling 24 h)* ${limits}\n*Requests expire after* ${Math.round(p.withdrawals.expires_after / 60_000)} min\n*Authenticator code needed to approve above* ${perCurrency(p.withdrawals.step_up_above)}\n*Low-balance alert below* ${perCurrency(p.alerts.low_balance)}`,
          ),
          section(
            `*Allowlist* (${ALLOWLIST_MODE[allow.mode]}; a newly approved address is usable ${allow.cooloff % 3_600_000 === 0 ? `${allow.cooloff / 3_600_000} h` : `${Math.round(allow.cooloff / 60_000)} min`} after its approval)`,
          ),
          // The view's other blocks are few: the rest of Slack's 50 is the list's.
          ...packLines(listed.length ? listed : ['_No addresses listed._']).slice(0, 40),
        ],
      });
    },
  },
  audit: {
    run: async ({ deps, respond }) => {
      const check = verifyAudit(deps.store);
      const entries = recentAudit(deps.store, 20);
      // Each row stands alone: who, what (in the card's words), amount, payee, reference, reason.
      const lines = entries.map(
        (e) =>
          `\`#${e.seq}\` ${utcMinute(Date.parse(e.at))} · ${e.actor === 'system' ? 'the app' : `<@${e.actor}>`} · ${auditRowText(e, (id) => deps.withdrawals.get(id))}`,
      );
      await respond({
        response_type: 'ephemeral',
        text: 'Audit log',
        blocks: [
          header('Audit log'),
          section(
            check.ok
              ? `:white_check_mark: Hash chain verified: ${check.count} entries.`
              : `:rotating_light: *The audit log does not verify* at entry #${check.seq}: ${check.reason}`,
          ),
          ...packLines(lines.length ? lines : ['_No entries yet._']),
          context('`/treasury audit export` sends the whole log as CSV.'),
        ],
      });
    },
  },

  'audit export': {
    run: async ({ deps, respond, client, userId }) => {
      const check = verifyAudit(deps.store);
      const day = utcDay(deps.now());
      await client.files.uploadV2({
        channel_id: await dmChannel(client, userId),
        file: Buffer.from(auditCsv(deps.store), 'utf8'),
        filename: `audit-${day}.csv`,
        title: `Audit log ${day}`,
        initial_comment: check.ok
          ? `Audit log: ${check.count} entries, hash chain verified.`
          : `:rotating_light: Audit log export: the hash chain does NOT verify at entry #${check.seq} (${check.reason}).`,
      });
      await respond({
        response_type: 'ephemeral',
        text: ':white_check_mark: The audit log was sent to you in a direct message.',
      });
    },
  },

  digest: {
    run: (ctx) => digestVerb(ctx),
  },

  balances: balancesVerb,
  pending: pendingVerb,
  withdrawal: withdrawalVerb,

  ...FREEZE_VERBS,
  'webhook register': {
    run: async ({ deps, respond, userId }) => {
      // In turn with rotations (src/webhooks/wiring.ts): the URL of the secret current when it runs.
      const r = await deps.registerWebhook(userId);
      const stale = r.ok && !deps.webhookRotation.isCurrent(r) ? `\n${NOT_CURRENT}` : '';
      await respond({
        response_type: 'ephemeral',
        text: r.ok
          ? `:white_check_mark: Webhook registered: ${r.shownUrl}${stale}`
          : `:warning: Webhook not registered: ${outside(maskWebhookPaths(r.error ?? 'unknown error'), 300)}`,
      });
    },
  },
  'webhook rotate': webhookRotateVerb,
  'stepup reset': stepUpResetVerb,
  passkey: passkeyVerb,
  'passkey list': passkeyListVerb,
  'passkey remove': passkeyRemoveVerb,
  'passkey revoke': passkeyRevokeVerb,
};
