/**
 * The app's commands, said once: the slash commands with their manifest description, usage
 * hint and help lines, and the /treasury verbs with who may use them. The help text
 * (`/treasury help`, the App Home) is generated from here, and a test holds manifest.yml
 * equal to it. Adding a command: a row here, its folder with an `index.ts`, a line in
 * `index.ts` of this folder (the compiler asks for it), and the manifest entry.
 */
import type { Role } from '../src/policy/schema.js';

export interface CommandSpec {
  name: `/${string}`;
  /** manifest.yml's `description` */
  description: string;
  /** manifest.yml's `usage_hint` */
  usageHint: string;
  /** Lines of the help text (without the bullet). */
  help: readonly string[];
}

export const COMMANDS = [
  {
    name: '/address',
    description: "Generate (or look up) a client's deposit address",
    usageHint: '<client-email> <currency> <network>',
    help: [
      '`/address <client-email> <currency> <network>`: a client’s deposit address (and its QR code). Example: `/address alice@client.com USDT BSC`',
    ],
  },
  {
    name: '/withdraw',
    description: 'Request a withdrawal; it is sent only after approval',
    usageHint: '[<amount> <currency> <network> <destination> <client-email> [note...]]',
    help: [
      '`/withdraw`: request a withdrawal in a form; or in one line: `/withdraw 250 USDT BSC 0xabc…def alice@client.com invoice 1042`. Nothing is sent before the policy’s approvals.',
      '`/withdraw batch`: pay many clients from one CSV file (up to 1,000 rows), checked whole and approved once on its total.',
    ],
  },
  {
    name: '/tx',
    description: 'Look up or export transactions',
    usageHint:
      '[export [format=csv|xero|quickbooks|cryptio]] [currency=..] [network=..] [status=confirmed|failed] [type=deposit|withdrawal] [hash=..] [address=..] [client=..] [from=YYYY-MM-DD] [to=YYYY-MM-DD] [page=N] [size=N] | batch [reference]',
    help: [
      '`/tx [filters]`: transactions, newest first. Examples: `/tx currency=USDT status=failed`, `/tx type=deposit from=2026-11-01 to=2026-11-15 size=50`, `/tx hash=0x…`',
      '`/tx export [filters]`: every matching transaction as a CSV file, sent to you in a direct message.',
      '`/tx export format=xero|quickbooks|cryptio [filters]`: the same, as the accounting tool imports it (Xero bank statement, QuickBooks Online bank upload, Cryptio custom import). Example: `/tx export format=xero currency=USDT from=2026-11-01 to=2026-11-30`',
      '`/tx batch`: the recent batch payouts with their references; `/tx batch <reference>`: one of them row by row, with each row not sent and why. In an export, each row of a batch is one line with its batch id.',
    ],
  },
  {
    name: '/treasury',
    description: "Help, status, balances, digest, a withdrawal's story, policy, audit, freeze",
    usageHint:
      'help | status | pending | balances | digest [days] | withdrawal <reference> | policy | audit [export] | freeze <reason> | unfreeze | verification-url | stepup reset @person | webhook register | webhook rotate | away until <date> [delegate @person] | back',
    // Its verbs' lines come from TREASURY_VERBS.
    help: [],
  },
] as const satisfies readonly CommandSpec[];

export type CommandName = (typeof COMMANDS)[number]['name'];

export interface VerbSpec {
  /** What is typed after `/treasury`, e.g. "audit export". */
  usage: string;
  summary: string;
  /** Who may use it; admins' verbs say so in the help. */
  role: Role;
}

export const TREASURY_VERBS = {
  help: { usage: 'help', summary: 'this help', role: 'viewers' },
  status: { usage: 'status', summary: 'whether everything is working (admins also see the details)', role: 'viewers' },
  policy: { usage: 'policy', summary: 'the treasury policy in force', role: 'admins' },
  audit: {
    usage: 'audit',
    summary:
      'the latest entries of the audit log, and whether its hash chain verifies (checked from the last verified entry on)',
    role: 'admins',
  },
  'audit export': {
    usage: 'audit export',
    summary: 'the whole audit log as a CSV file, in a DM, with a full check of its hash chain',
    role: 'admins',
  },
  digest: {
    usage: 'digest [days]',
    summary:
      'the last 24 hours (or 1 to 31 days): deposits and withdrawals per currency, balances, approvals, the largest movements; its chart (per day, the last 14 days, or the period asked if longer) comes to you in a direct message',
    role: 'viewers',
  },
  pending: {
    usage: 'pending',
    summary: 'the team’s queue: every open withdrawal request, its time left, and whose approval it still needs',
    role: 'viewers',
  },
  balances: {
    usage: 'balances',
    summary: 'the balances of the origin accounts, per currency and network, read from the wallet service now',
    role: 'viewers',
  },
  withdrawal: {
    usage: 'withdrawal <reference>',
    summary: 'one withdrawal’s whole story: request, decisions, send, the wallet service’s status, notifications',
    role: 'viewers',
  },
  'webhook register': {
    usage: 'webhook register',
    summary: 'tell the wallet service where to send its deposit and withdrawal notifications',
    role: 'admins',
  },
  'webhook rotate': {
    usage: 'webhook rotate',
    summary:
      'a new secret webhook URL (a leaked one stops working): registered with the wallet service, the old one accepted for 10 minutes, the admins told',
    role: 'admins',
  },
  'stepup reset': {
    usage: 'stepup reset @person',
    summary:
      'reset someone’s authenticator codes (a lost phone): they are told, and set them up again from the Home tab',
    role: 'admins',
  },
  passkey: {
    usage: 'passkey',
    summary:
      'a single-use link, by DM, to set up a passkey or security key that confirms your approvals of large withdrawals',
    role: 'approvers',
  },
  'passkey list': { usage: 'passkey list', summary: 'your passkeys, by name', role: 'approvers' },
  'passkey remove': { usage: 'passkey remove <name>', summary: 'remove one of your passkeys', role: 'approvers' },
  'passkey revoke': {
    usage: 'passkey revoke @person',
    summary: 'revoke every passkey of someone (a lost or stolen key): they are told, and set one up again',
    role: 'admins',
  },
  freeze: {
    usage: 'freeze <reason>',
    summary: 'stop every send at once; two admins are needed to unfreeze',
    role: 'admins',
  },
  unfreeze: {
    usage: 'unfreeze',
    summary: 'ask to resume sends; a second admin confirms on the freeze notice',
    role: 'admins',
  },
  away: {
    usage: 'away until <date> [delegate @person]',
    summary:
      'no approval DMs until then; the delegate named approves in your place (one vote for both). An admin may add a person first: `away @person until <date>`',
    role: 'viewers',
  },
  back: {
    usage: 'back',
    summary: 'no longer away: approval DMs again (an admin may add a person: `back @person`)',
    role: 'viewers',
  },
  'verification-url': {
    usage: 'verification-url',
    summary: "the verification URL for the wallet service's dashboard, in full, shown only to you",
    role: 'admins',
  },
} as const satisfies Record<string, VerbSpec>;

export type VerbName = keyof typeof TREASURY_VERBS;
