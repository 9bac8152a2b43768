/**
 * What each /treasury verb does. Who may use it, and its help line, are in ../table.ts;
 * verbs that change or reveal configuration are for `people.admins`.
 */
import type { RespondFn } from '@slack/bolt';
import type { App } from '@slack/bolt';
import { auditCsv, recentAudit, verifyAudit } from '../../src/audit/index.js';
import { utcDay, utcMinute } from '../../src/format/time.js';
import { context, fields, header, mention, packLines, section } from '../../src/slack/blocks.js';
import { dmChannel } from '../../src/slack/guard.js';
import { storeUnavailableMessage, userMessage } from '../../src/slack/user-errors.js';
import { dailyDigest } from '../../src/transactions/digest.js';
import { registrationStatus } from '../../src/webhooks/registration.js';
import { formatAmount } from '../../src/withdrawals/index.js';
import { auditRowText } from '../../src/slack/withdrawal-card.js';
import type { CommandDeps } from '../deps.js';
import { helpText } from '../help.js';
import type { VerbName } from '../table.js';

interface VerbContext {
  deps: CommandDeps;
  args: string[];
  userId: string;
  respond: RespondFn;
  client: App['client'];
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

export const VERB_RUNS: Record<VerbName, VerbRun> = {
  help: {
    run: async ({ respond }) => void (await respond({ response_type: 'ephemeral', text: helpText() })),
  },
  status: {
    run: async ({ deps, respond }) => {
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
        ? `:large_green_circle: logged in as ${wallet.email}; token expires ${utcMinute(wallet.expiresAt)}`
        : ':red_circle: not logged in';
      const s = deps.store.stats();
      const hook = registrationStatus(deps.store);
      const extra: Array<[string, string]> = [
        [
          'Webhook',
          !hook
            ? deps.config.publicUrl
              ? ':grey_question: not registered yet'
              : ':white_circle: not registered (PUBLIC_URL is not set)'
            : hook.ok
              ? `:large_green_circle: ${hook.shownUrl}, registered ${utcMinute(Date.parse(hook.at))}`
              : `:red_circle: registration failed ${utcMinute(Date.parse(hook.at))}: ${hook.error ?? ''}`,
        ],
        ['Pending approvals', String(deps.withdrawals.pendingCount())],
        ['Outbox', `${deps.outbox.pending()} message(s) waiting to be posted`],
      ];
      await respond({
        response_type: 'ephemeral',
        text: 'Treasury status',
        blocks: [
          header('Treasury status'),
          fields([
            ['Wallet service', `${deps.walletDescription}\n${walletLine}`],
            ['Store', `${s.records} records · ${fmtBytes(s.snapshotBytes + s.journalBytes)} on disk${storeLine(deps.store.health())}`],
            ...extra,
            ['Version', deps.version],
          ]),
          context(`Slack mode: ${deps.config.slack.mode}`),
        ],
      });
    },
  },
  policy: {
    run: async ({ deps, respond }) => {
      const p = deps.policy;
      const who = (xs: string[]) => (xs.length ? xs.map((x) => mention(x, 'everyone')).join(', ') : 'nobody');
      const tiers = Object.entries(p.withdrawals.tiers)
        .map(([cur, ts]) => `*${cur}*: ${ts.map((t) => `${t.max ? `≤ ${t.max}` : 'above'} → ${t.approvals} approval${t.approvals > 1 ? 's' : ''}${t.must_include.length ? ` incl. ${who(t.must_include)}` : ''}`).join('; ')}`)
        .join('\n');
      const limits = Object.entries(p.withdrawals.daily_limit).map(([c, v]) => `${v} ${c}`).join(', ') || 'none';
      await respond({
        response_type: 'ephemeral',
        text: 'Treasury policy',
        blocks: [
          header('Treasury policy'),
          section(`*Approvals channel* <#${p.channels.approvals}> · *Alerts channel* <#${p.channels.alerts}>`),
          section(`*Viewers* ${who(p.people.viewers)}\n*Requesters* ${who(p.people.requesters)}\n*Approvers* ${who(p.people.approvers)}\n*Admins* ${who(p.people.admins)}`),
          section(`*Tiers*\n${tiers}\n*Daily limits (rolling 24 h)* ${limits}\n*Allowlist* ${p.withdrawals.allowlist.mode}, ${p.withdrawals.allowlist.addresses.length} address(es) · *Requests expire after* ${Math.round(p.withdrawals.expires_after / 60_000)} min`),
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
        (e) => `\`#${e.seq}\` ${utcMinute(Date.parse(e.at))} · ${e.actor === 'system' ? 'the app' : `<@${e.actor}>`} · ${auditRowText(e, (id) => deps.withdrawals.get(id))}`,
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
        initial_comment: check.ok ? `Audit log: ${check.count} entries, hash chain verified.` : `:rotating_light: Audit log export: the hash chain does NOT verify at entry #${check.seq} (${check.reason}).`,
      });
      await respond({ response_type: 'ephemeral', text: ':white_check_mark: The audit log was sent to you in a direct message.' });
    },
  },

  digest: {
    run: async ({ deps, respond }) => {
      const d = await dailyDigest(deps.wallet, deps.now());
      const lines = d.lines.map(
        (l) =>
          `*${l.currency}*: ${l.deposits.count} deposit(s) totalling ${formatAmount(l.deposits.total, l.currency)} · ${l.withdrawals.count} withdrawal(s) totalling ${formatAmount(l.withdrawals.total, l.currency)}${l.failed ? ` · :x: ${l.failed} failed` : ''}`,
      );
      const unknown = deps.withdrawals.list({ state: 'unknown' }).length;
      await respond({
        response_type: 'ephemeral',
        text: 'Treasury digest (last 24 hours)',
        blocks: [
          header('Treasury digest: last 24 hours'),
          ...packLines(lines.length ? lines : ['_No transactions in the last 24 hours._']),
          section(
            `*Waiting for approval*: ${deps.withdrawals.pendingCount()}${unknown ? ` · :warning: *${unknown} withdrawal(s) with an unknown outcome* (see their cards)` : ''}`,
          ),
          context(`${d.records} transaction(s) from the wallet service's list${d.truncated ? ' (the oldest were left out: use /tx export for everything)' : ''}.`),
        ],
      });
    },
  },

  'webhook register': {
    run: async ({ deps, respond, userId }) => {
      const r = await deps.registerWebhook(userId);
      await respond({
        response_type: 'ephemeral',
        text: r.ok ? `:white_check_mark: Webhook registered: ${r.shownUrl}` : `:warning: Webhook not registered: ${r.error ?? 'unknown error'}`,
      });
    },
  },
};
