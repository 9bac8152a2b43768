/**
 * /treasury help | status | policy | audit [export] | digest | webhook register: the app's own
 * console. Verbs that change or reveal configuration are for `people.admins`.
 */
import type { App, RespondFn } from '@slack/bolt';
import type { Role } from '../src/policy/schema.js';
import { refusal } from '../src/slack/access.js';
import { auditCsv, recentAudit, verifyAudit } from '../src/audit/index.js';
import { context, esc, fields, header, mention, packLines, section } from '../src/slack/blocks.js';
import { dmChannel, guarded } from '../src/slack/guard.js';
import { dailyDigest } from '../src/transactions/digest.js';
import { registrationStatus } from '../src/webhooks/registration.js';
import { formatAmount } from '../src/withdrawals/index.js';
import { words } from '../src/slack/text.js';
import { userMessage } from '../src/slack/user-errors.js';
import type { CommandDeps } from './deps.js';

export const name = '/treasury';

interface VerbContext {
  deps: CommandDeps;
  args: string[];
  userId: string;
  respond: RespondFn;
  client: App['client'];
}

export interface Verb {
  /** e.g. "audit export" */
  usage: string;
  summary: string;
  role: Role;
  run(ctx: VerbContext): Promise<void>;
}

export function helpText(): string {
  return [
    '*Treasury commands*',
    '• `/address <client-email> <currency> <network>`: a client’s deposit address (and its QR code). Example: `/address alice@client.com USDT BSC`',
    '• `/withdraw`: request a withdrawal in a form; or in one line: `/withdraw 250 USDT BSC 0xabc…def alice@client.com invoice 1042`. Nothing is sent before the policy’s approvals.',
    '• `/tx [filters]`: transactions, newest first. Examples: `/tx currency=USDT status=failed`, `/tx type=deposit from=2026-11-01 to=2026-11-15 size=50`, `/tx hash=0x…`',
    '• `/tx export [filters]`: every matching transaction as a CSV file, sent to you in a direct message.',
    ...Object.values(VERBS).map((v) => `• \`/treasury ${v.usage}\`: ${v.summary}`),
    'Currencies and networks are accepted by name (any case) or code: `usdt`, `4`, `MATIC`/`POLYGON`, `ETH`/`ETHEREUM`.',
  ].join('\n');
}

function fmtTime(ms: number | undefined): string {
  return ms === undefined ? 'unknown' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function fmtBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

export const VERBS: Record<string, Verb> = {
  help: {
    usage: 'help',
    summary: 'this help',
    role: 'viewers',
    run: async ({ respond }) => void (await respond({ response_type: 'ephemeral', text: helpText() })),
  },
  status: {
    usage: 'status',
    summary: 'wallet login, webhook registration, store, pending approvals, version',
    role: 'viewers',
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
        ? `:large_green_circle: logged in as ${wallet.email}; token expires ${fmtTime(wallet.expiresAt)}`
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
              ? `:large_green_circle: ${hook.shownUrl}, registered ${fmtTime(Date.parse(hook.at))}`
              : `:red_circle: registration failed ${fmtTime(Date.parse(hook.at))}: ${hook.error ?? ''}`,
        ],
        ['Pending approvals', String(deps.withdrawals.pendingCount())],
        ['Outbox', `${deps.outbox.pending()} message(s) waiting to be posted`],
        ['Notifications of unknown shape', esc(deps.alerts.unknownSummary().text)],
      ];
      await respond({
        response_type: 'ephemeral',
        text: 'Treasury status',
        blocks: [
          header('Treasury status'),
          fields([
            ['Wallet service', `${deps.walletDescription}\n${walletLine}`],
            ['Store', `${s.records} records · ${fmtBytes(s.snapshotBytes + s.journalBytes)} on disk`],
            ...extra,
            ['Version', deps.version],
          ]),
          context(`Slack mode: ${deps.config.slack.mode}`),
        ],
      });
    },
  },
  policy: {
    usage: 'policy',
    summary: 'the treasury policy in force (admins)',
    role: 'admins',
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
    usage: 'audit',
    summary: 'the latest entries of the audit log, and whether its hash chain verifies (admins)',
    role: 'admins',
    run: async ({ deps, respond }) => {
      const check = verifyAudit(deps.store);
      const entries = recentAudit(deps.store, 20);
      const lines = entries.map(
        (e) => `\`#${e.seq}\` ${fmtTime(Date.parse(e.at))} · ${e.actor === 'system' ? 'system' : `<@${e.actor}>`} · *${e.action}* · \`${e.subject}\``,
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
    usage: 'audit export',
    summary: 'the whole audit log as a CSV file, in a DM (admins)',
    role: 'admins',
    run: async ({ deps, respond, client, userId }) => {
      const check = verifyAudit(deps.store);
      const day = new Date(deps.now()).toISOString().slice(0, 10);
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
    usage: 'digest',
    summary: 'the last 24 hours: deposits and withdrawals per currency, approvals waiting, outcomes to check',
    role: 'viewers',
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
    usage: 'webhook register',
    summary: 'register PUBLIC_URL/webhooks/wallet/<secret> with the wallet service (admins)',
    role: 'admins',
    run: async ({ deps, respond, userId }) => {
      const r = await deps.registerWebhook(userId);
      await respond({
        response_type: 'ephemeral',
        text: r.ok ? `:white_check_mark: Webhook registered: ${r.shownUrl}` : `:warning: Webhook not registered: ${r.error ?? 'unknown error'}`,
      });
  },
  },
};

export function register(app: App, deps: CommandDeps): void {
  app.command(name, async ({ command, ack, respond, client }) => {
    await ack();
    await guarded(deps.logger, respond, 'Treasury command', async () => {
      const args = words(command.text);
      const [first = 'help', second] = args.map((a) => a.toLowerCase());
      const verb = VERBS[`${first} ${second ?? ''}`.trim()] ?? VERBS[first];
      if (!verb) {
        return void (await respond({
          response_type: 'ephemeral',
          text: `:warning: Unknown subcommand “${first}”. Try one of: ${Object.values(VERBS).map((v) => `\`${v.usage}\``).join(', ')}`,
        }));
      }
      const refused = await refusal(deps.policy, verb.role, command.user_id, deps.groups);
      if (refused) return void (await respond({ response_type: 'ephemeral', text: refused }));
      await verb.run({ deps, args, userId: command.user_id, respond, client });
    });
  });
}
