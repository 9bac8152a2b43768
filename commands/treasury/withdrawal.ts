/**
 * `/treasury withdrawal <reference>`: one request's whole story in one ephemeral message: the
 * request, each decision (who, when), the send, the wallet service's status for its reference
 * (asked now), and the notifications received. The reference is the merchant reference, the
 * card's short reference (its first 8 characters), or the request id.
 */
import { z } from 'zod';
import { AUDIT_COLLECTION, type AuditEntry } from '../../src/audit/log.js';
import { formatAmount } from '../../src/format/amount.js';
import { utcMinute } from '../../src/format/time.js';
import { context, header, packLines, section, shorten } from '../../src/slack/blocks.js';
import { outside, outsideCode } from '../../src/format/outside.js';
import { echo } from '../../src/slack/limits.js';
import { userMessage } from '../../src/slack/user-errors.js';
import { auditWhat } from '../../src/slack/audit-words.js';
import { amountText, shortRef, stateLabel, transferWord } from '../../src/slack/withdrawal/index.js';
import type { WithdrawalStatusName } from '../../src/wallet/index.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../../src/withdrawals/index.js';
import type { CommandDeps } from '../deps.js';
import type { VerbRun } from './verb.js';

const USAGE =
  'Usage: `/treasury withdrawal <reference>`: the merchant reference, or the card’s short reference (`Ref` on the card).';

const referenceSchema = z
  .string()
  .min(6, 'a reference has at least 6 characters')
  .max(128, 'a reference has at most 128 characters')
  .regex(/^[A-Za-z0-9_-]+$/, 'a reference has only letters, digits, - and _');

/** The requests a reference names: an exact merchant reference or id, else those whose reference starts with it. */
export function findByReference(all: readonly WithdrawalRequest[], ref: string): WithdrawalRequest[] {
  const exact = all.filter((r) => r.merchantReference === ref || r.id === ref);
  if (exact.length) return exact;
  const lower = ref.toLowerCase();
  return all.filter((r) => r.merchantReference.toLowerCase().startsWith(lower));
}

/** At most this many requests a prefix lists (the message shows 10 and the count). */
const MATCHES = 100;

/**
 * The requests a reference names, open and closed alike: a closed request may have left memory
 * for the store's history (src/store/history.ts), which is searched by its indexed reference.
 * Newest first, as the list of open ones.
 */
async function requestsNamed(deps: CommandDeps, ref: string): Promise<{ list: WithdrawalRequest[]; capped: boolean }> {
  const hot = findByReference(deps.withdrawals.list(), ref);
  const h = deps.store.history;
  // The reads are independent: asked together (each waits on the database), not one after another.
  const [byId, byReference] = await Promise.all([
    h.get(WITHDRAWALS, ref),
    h.findBy(WITHDRAWALS, 'merchantReference', ref),
  ]);
  const exact = [...(byId ? [byId] : []), ...byReference];
  const found = exact.length
    ? exact
    : await h.findBy(WITHDRAWALS, 'merchantReference', ref, { prefix: true, limit: MATCHES });
  const all = new Map<string, WithdrawalRequest>();
  // Memory's copy first: it is the newest.
  for (const r of [...hot, ...found]) if (!all.has(r.id)) all.set(r.id, r);
  const list = findByReference([...all.values()], ref);
  list.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  // History stopped at MATCHES: more may be there (where all is in memory, `hot` counted them all).
  return { list, capped: !exact.length && found.length >= MATCHES && deps.store.evicts };
}

/** Every audit entry about the request, from history: step-up entries name it in `details.request`. */
async function stepsOf(deps: CommandDeps, id: string): Promise<AuditEntry[]> {
  const h = deps.store.history;
  const q = { limit: 1_000 };
  const [about, naming] = await Promise.all([
    h.findBy(AUDIT_COLLECTION, 'subject', id, q),
    h.findBy(AUDIT_COLLECTION, 'request', id, q),
  ]);
  const entries = [...about, ...naming];
  const bySeq = new Map(entries.map((e) => [e.seq, e]));
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

const who = (actor: string) => (actor === 'system' ? 'the app' : `<@${actor}>`);
const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** One step of the story from its audit entry, in the card's words. */
function stepText(e: AuditEntry, r: WithdrawalRequest): string {
  const d = e.details;
  const money = (v: unknown) => (str(v) ? formatAmount(str(v)!, r.currency) : undefined);
  switch (e.action) {
    case 'request':
      return `Requested by ${who(e.actor)}: ${amountText(r)} on ${r.network} to ${outsideCode(r.destination)}, from the wallet of ${outside(r.clientEmail)}${r.note ? ` (“${outside(shorten(r.note, 120, 0))}”)` : ''}`;
    case 'approve':
      return `✅ Approved by ${who(e.actor)}${typeof d.approvals === 'number' && typeof d.required === 'number' ? ` (${d.approvals} of ${d.required})` : ''}`;
    case 'reject':
      return `⛔ Rejected by ${who(e.actor)}: “${outside(str(d.reason) ?? '')}”`;
    case 'expire':
      return `⌛ Expired: ${outside(str(d.reason) ?? 'not approved in time')}`;
    case 'remind':
      return 'Approvers reminded';
    case 'send':
      return `🔄 Sent to the wallet service with merchant reference \`${r.merchantReference}\``;
    case 'result':
      if (d.ignored) return 'A late answer from the wallet service (already settled)';
      return d.outcome === 'completed'
        ? `✅ The wallet service accepted it${money(d.delivered) ? `: delivered ${money(d.delivered)}` : ''}${money(d.fee) ? `, fee ${money(d.fee)}` : ''}`
        : `❌ ${outside(str(d.reason) ?? 'failed')}`;
    case 'unknown':
      return `⚠️ Outcome unknown: ${outside(str(d.reason) ?? 'no answer')}`;
    case 'reconcile':
      return d.outcome === 'never_executed'
        ? '❌ Not sent: the wallet service has no record of it'
        : `${d.outcome === 'completed' ? '✅ Sent' : '❌ Failed'}, ${d.via === 'status' ? 'confirmed by the wallet service' : 'found in the transaction list'}`;
    case 'resolve':
      return `${d.outcome === 'sent' ? '✅ Resolved as sent' : '❌ Resolved as not sent'} by ${who(e.actor)}: “${outside(str(d.note) ?? '')}”`;
    case 'webhook':
    case 'webhook_contradiction':
      return `📨 Notification from the wallet service: ${transferWord(str(d.status) ?? 'update')}${str(d.transactionHash) ? ` · transaction ${outsideCode(shorten(str(d.transactionHash)!, 10, 6))}` : ''}${e.action === 'webhook_contradiction' ? ' 🚨 contradicts the card' : ''}`;
    default: {
      // Every other decision in the words /treasury audit uses (the gates, the policy re-check, step-up).
      const words = auditWhat(e);
      if (!words) return outside(e.action);
      // A step-up's `why` is a code (its words are above); a reason the words already say is not repeated.
      const said = e.action.startsWith('stepup_') ? undefined : str(d.why ?? d.reason);
      const why = said && !words.includes(said) ? said : undefined;
      return `${words}${e.actor === 'system' ? '' : ` · ${who(e.actor)}`}${why ? `: “${outside(shorten(why, 200, 0))}”` : ''}`;
    }
  }
}

const STATUS_WORDS: Record<WithdrawalStatusName, string> = {
  not_found: 'no record of this reference',
  pending: '⏳ pending',
  completed: '✅ completed',
  failed: '❌ failed',
};

/** The service's status for the reference, asked now; only for a request that was sent. */
async function serviceStatus(deps: CommandDeps, r: WithdrawalRequest): Promise<string> {
  if (!r.sendStartedAt) return 'not asked: this request was never sent';
  try {
    const s = await deps.wallet.withdrawalStatus(r.merchantReference);
    const hash = s.transactionHash ? ` · transaction ${outsideCode(shorten(s.transactionHash, 10, 6))}` : '';
    return `${STATUS_WORDS[s.status]}${s.amount ? ` · ${outside(formatAmount(s.amount, r.currency))}` : ''}${hash}`;
  } catch (err) {
    return userMessage(err, 'Asking the wallet service');
  }
}

export const withdrawalVerb: VerbRun = {
  run: async ({ deps, args, respond }) => {
    const say = (text: string) => respond({ response_type: 'ephemeral', text });
    const raw = args[1];
    if (!raw) return void (await say(`:warning: Which withdrawal? ${USAGE}`));
    const parsed = referenceSchema.safeParse(raw);
    if (!parsed.success)
      return void (await say(
        `:warning: “${echo(raw)}” is not a reference: ${parsed.error.issues[0]!.message}. ${USAGE}`,
      ));
    const { list: found, capped } = await requestsNamed(deps, parsed.data);
    if (!found.length) return void (await say(`:mag: No withdrawal request has the reference “${echo(raw)}”.`));
    if (found.length > 1) {
      const lines = found
        .slice(0, 10)
        .map(
          (r) =>
            `• \`${r.merchantReference}\` · ${stateLabel(r)} · ${amountText(r)} on ${r.network}, ${utcMinute(r.createdAt)}`,
        );
      return void (await say(
        `:mag: ${capped ? `${found.length} or more` : found.length} requests have a reference starting with “${echo(raw)}”: give more of it.\n${lines.join('\n')}`,
      ));
    }
    const r = found[0]!;
    // The story from history and the service's status now, asked at once.
    const [entries, status] = await Promise.all([stepsOf(deps, r.id), serviceStatus(deps, r)]);
    const steps = entries.map((e) => `${utcMinute(e.at)} · ${stepText(e, r)}`);
    await respond({
      response_type: 'ephemeral',
      text: `Withdrawal ${shortRef(r)}: ${stateLabel(r)} · ${amountText(r)} on ${r.network}`,
      blocks: [
        header(`${stateLabel(r)} · ${amountText(r)} on ${r.network}`),
        ...packLines(steps.length ? steps : ['_No recorded steps._']).slice(0, 40),
        section(`*Wallet service status now*: ${status}`),
        context(`Merchant reference \`${r.merchantReference}\` · request \`${r.id}\``),
      ],
    });
  },
};
