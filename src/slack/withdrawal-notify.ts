/**
 * Turns withdrawal events into outbox entries, inside the commit of the change itself: the
 * card in the approvals channel is posted once and edited after every change, its thread
 * gets reminders and transfer updates (admins are called on a failed or contradicting
 * transfer), and the requester gets a DM for every outcome. The outbox renders from the
 * current state, so the content is never stale, and never lost across a crash.
 */
import { withdrawalMetadata } from './message-metadata.js';
import { frozenFact } from '../freeze/state.js';
import type { Logger } from '../log.js';
import { COLLECTIONS, type Outbox, type OutboxRequest } from '../outbox/index.js';
import type { GroupResolver } from '../policy/people.js';
import type { Policy } from '../policy/schema.js';
import type { PolicySource } from '../policy/source.js';
import { collection, type Store, type Tx } from '../store/index.js';
import type { ExplorerNet } from '../wallet/explorers.js';
import {
  needsAdminAttention,
  WITHDRAWALS,
  type WithdrawalEvent,
  type WithdrawalRequest,
  type WithdrawalService,
} from '../withdrawals/index.js';
import { familyOf } from '../withdrawals/hold/family.js';
import {
  APPROVER_DM_RENDERER,
  CARD_RENDERER,
  DM_RENDERER,
  THREAD_RENDERER,
  cardKey,
  cardRequestId,
  renderApproverDm,
  renderCard,
  renderDm,
  renderThread,
  type CardPointer,
} from './withdrawal/index.js';
import { type DmEvent, encodeApproverDmRef, encodeDmRef, encodeThreadLine } from './withdrawal/thread-ref.js';
import { MISMATCH_RENDERER, renderServiceMismatch } from './withdrawal-mismatch.js';
import { mention } from './blocks.js';
import { NOBODY_AWAY, routeAsks, votedBy, type Delegation } from '../away/delegation.js';
import { delegationIn } from '../away/service.js';

/** Card permalinks from chat.getPermalink, by request id (asked once per card). */
/** The permalink of each withdrawal's card, once asked of Slack (the persisted name must not change). */
export const CARD_LINKS = collection<{ permalink: string }>('withdrawal_card_links');

/** The part of the Web API the card links need. */
export interface PermalinkClient {
  chat: { getPermalink(args: { channel: string; message_ts: string }): Promise<{ ok?: boolean; permalink?: string }> };
}

/**
 * The requester hears once per event: `approved`/`executing` says nothing (the send follows in
 * about a second and `completed` or `failed` says what happened); `requested` is sent with the
 * approvers' DMs once the card is posted (`cardPostedDms`), and only for the form, since a
 * one-line command is answered where it was typed.
 */
/** Events that never change whether a new request of the same payout may be made. */
const QUIET_FOR_FAMILY = new Set(['approval-recorded', 'reminder', 'executing', 'approved', 'reopened', 'released']);

const DM_EVENTS: ReadonlySet<string> = new Set<DmEvent>([
  'completed',
  'failed',
  'rejected',
  'expired',
  'unknown',
  'resolved',
  'held',
  'released',
]);
const isDmEvent = (type: string): type is DmEvent => DM_EVENTS.has(type);

const isUser = (id: string) => /^[UW][A-Z0-9]+$/.test(id);

/**
 * Approvers asked by DM: the policy's users and the members of its user groups (when a group
 * resolver is given), never the requester. "*" (anyone) is reached through the card's channel.
 */
export async function approversToAsk(
  policy: Policy,
  r: WithdrawalRequest,
  groups?: GroupResolver,
  onGroupError?: (group: string, err: unknown) => void,
  away: Delegation = NOBODY_AWAY,
): Promise<string[]> {
  const out = new Set<string>();
  for (const entry of policy.people.approvers) {
    if (isUser(entry)) out.add(entry);
    else if (entry.startsWith('S') && groups) {
      // A group Slack cannot list now must not keep the named approvers from being asked.
      const members = await groups.membersOf(entry).catch((err: unknown) => {
        onGroupError?.(entry, err);
        return [] as string[];
      });
      for (const member of members) if (isUser(member)) out.add(member);
    }
  }
  out.delete(r.requester);
  // Someone away gets no DM; their delegate does (src/away).
  return routeAsks([...out], away, r.requester, votedBy(r.approvals));
}

export const approverDmKey = (id: string, user: string) => `${cardKey(id)}:dm:approver:${user}`;

/**
 * The DMs that link to a newly posted card: each eligible approver asked to decide, and the
 * requester's confirmation of a request made in the form. Once each: the keys are unique.
 */
export function cardPostedDms(r: WithdrawalRequest, approvers: readonly string[]): OutboxRequest[] {
  const asks: OutboxRequest[] = approvers.map((user) => ({
    op: 'dm',
    renderer: APPROVER_DM_RENDERER,
    ref: encodeApproverDmRef({ id: r.id, approver: user }),
    user,
    key: approverDmKey(r.id, user),
  }));
  if (r.requestedFrom === 'command') return asks;
  return [
    {
      op: 'dm',
      renderer: DM_RENDERER,
      ref: encodeDmRef({ id: r.id, event: 'requested' }),
      user: r.requester,
      key: `${cardKey(r.id)}:dm:requested`,
    },
    ...asks,
  ];
}

export function withdrawalMessages(
  event: WithdrawalEvent,
  policy: Policy,
  service: Pick<WithdrawalService, 'reminderTargets'> & Partial<Pick<WithdrawalService, 'list'>>,
): OutboxRequest[] {
  const r = event.request;
  const key = cardKey(r.id);
  const out: OutboxRequest[] = [];
  if (event.type === 'requested') {
    out.push({ op: 'post', renderer: CARD_RENDERER, ref: r.id, key, channel: policy.channels.approvals });
  } else {
    out.push({ op: 'update', renderer: CARD_RENDERER, ref: r.id, key });
  }
  // One payout, one request under way (src/withdrawals/hold/): the other never-executed cards of the same
  // payout gain or lose "New request with the same details" as this one starts or ends.
  if (service.list && !QUIET_FOR_FAMILY.has(event.type))
    for (const m of familyOf(service.list(), r))
      if (
        m.id !== r.id &&
        ((m.state === 'failed' && m.error?.kind === 'never_executed') ||
          // What the service (or a notification, as a claim) now says of this one is in the words of the held or flagged cards.
          (['confirmation', 'contradiction', 'notice', 'notice-disagreed'].includes(event.type) &&
            (m.hold || m.doublePaymentRisk)))
      )
        out.push({ op: 'update', renderer: CARD_RENDERER, ref: m.id, key: cardKey(m.id) });
  // Every approval gets its thread line, the one that completes the quorum (`approved`) too.
  if (event.type === 'approval-recorded' || event.type === 'approved')
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: 'approved', id: r.id, user: r.approvals.at(-1)?.user ?? '' }),
      key,
    });
  if (event.type === 'reminder') {
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: 'reminder', id: r.id, mentions: service.reminderTargets(r) }),
      key,
    });
  }
  if (event.type === 'reopened') {
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: 'policy', id: r.id, mentions: service.reminderTargets(r) }),
      key,
    });
  }
  // The admins are called when a transfer fails or contradicts the card, or a repeat is held or may have paid twice.
  const admins = needsAdminAttention(event) ? policy.people.admins : [];
  if ((event.type === 'confirmation' || event.type === 'contradiction') && r.confirmation) {
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: event.type, id: r.id, status: r.confirmation.status, mentions: admins }),
      key,
    });
  }
  // A repeat held (its payout reported after "never executed", or retyped on hold; src/withdrawals/hold/): the admins, once.
  // A notification the wallet service contradicts (it may be forged): the admins, once per request
  // (the domain emits this event once). The ref carries no outside text: the renderer escapes the claim.
  if (event.type === 'notice-disagreed')
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: 'notice-disagreed', id: r.id, mentions: admins }),
      key,
    });
  // The service's answer names another destination or amount: nothing settled; the admins, once (the domain emits it once).
  if (event.type === 'service-mismatch')
    out.push({
      op: 'reply',
      renderer: MISMATCH_RENDERER,
      ref: `${r.id}|${policy.people.admins.map((a) => mention(a)).join(' ')}`,
      key,
    });
  if (event.type === 'held' || (event.type === 'requested' && r.hold))
    out.push({
      op: 'reply',
      renderer: THREAD_RENDERER,
      ref: encodeThreadLine({ kind: 'held', id: r.id, mentions: admins }),
      key,
    });
  if (event.type === 'released')
    out.push({ op: 'reply', renderer: THREAD_RENDERER, ref: encodeThreadLine({ kind: 'released', id: r.id }), key });
  if (event.type === 'double-payment-risk' && r.doublePaymentRisk) {
    const { status } = r.doublePaymentRisk;
    out.push(
      {
        op: 'reply',
        renderer: THREAD_RENDERER,
        ref: encodeThreadLine({ kind: 'double-payment', id: r.id, status, mentions: admins }),
        key,
      },
      // Under the original's card too: whoever looks at either sees it.
      {
        op: 'reply',
        renderer: THREAD_RENDERER,
        ref: encodeThreadLine({ kind: 'double-payment-original', id: r.id, status, mentions: admins }),
        key: cardKey(r.doublePaymentRisk.original),
      },
    );
  }
  if (isDmEvent(event.type)) {
    out.push({
      op: 'dm',
      renderer: DM_RENDERER,
      ref: encodeDmRef({ id: r.id, event: event.type }),
      user: r.requester,
      key: `${key}:dm:${event.type}`,
    });
  }
  return out;
}

export interface WithdrawalNotifier {
  /** For the service's onChange: runs inside the change's commit, so a notification is never lost. */
  onChange: (event: WithdrawalEvent, tx: Tx) => void;
  /** At start: a card for every request that has none (a crash between the request and its enqueue). */
  heal(): Promise<void>;
  /**
   * The card's permalink (chat.getPermalink, asked once and kept), or undefined while the card
   * is not posted yet or when no Web API client was given. For the App Home's rows and DMs.
   */
  cardPermalink(requestId: string): Promise<string | undefined>;
  /** What a message should link to, synchronously: the permalink if already known, else the approvals channel. */
  cardPointer(requestId: string): CardPointer;
}

export function withdrawalNotifier(o: {
  store: Store;
  outbox: Outbox;
  service: WithdrawalService;
  policy: PolicySource;
  logger: Logger;
  explorerNet: ExplorerNet;
  /** For card permalinks; without it, messages point at the approvals channel. */
  slack?: PermalinkClient;
  /** To ask the members of approver user groups too; without it, only the users named in the policy. */
  groups?: GroupResolver;
  /** The app's clock (who is away now); Date.now without it. */
  now?: () => number;
}): WithdrawalNotifier {
  const get = (id: string) => o.service.get(id);
  const cardPointer = (id: string): CardPointer => {
    const known = o.store.get(CARD_LINKS, id)?.permalink;
    if (!known) void cardPermalink(id);
    return { ...(known ? { permalink: known } : {}), channel: o.policy.current().channels.approvals };
  };
  const asking = new Map<string, Promise<string | undefined>>();
  function cardPermalink(id: string): Promise<string | undefined> {
    const known = o.store.get(CARD_LINKS, id)?.permalink;
    if (known) return Promise.resolve(known);
    const posted = o.outbox.message(cardKey(id));
    if (!o.slack || !posted?.channel || !posted.ts) return Promise.resolve(undefined);
    const running = asking.get(id);
    if (running) return running;
    const { channel, ts } = posted;
    const p = (async () => {
      try {
        const res = await o.slack!.chat.getPermalink({ channel, message_ts: ts });
        const permalink = res.permalink;
        if (!permalink) return undefined;
        await o.store.commit((tx) => tx.put(CARD_LINKS, id, { permalink }));
        return permalink;
      } catch (err) {
        o.logger.warn(
          { err: err instanceof Error ? err.message : String(err), id },
          'could not get the permalink of a withdrawal card',
        );
        return undefined;
      } finally {
        asking.delete(id);
      }
    })();
    asking.set(id, p);
    return p;
  }
  o.outbox.registerRenderer(CARD_RENDERER, (ref) => {
    const r = get(ref);
    // With its state as message metadata, for the team's own workflows (issue 40).
    return r
      ? { ...renderCard(r, o.service, o.explorerNet, frozenFact(o.store)), metadata: withdrawalMetadata(r) }
      : null;
  });
  o.outbox.registerRenderer(THREAD_RENDERER, (ref) => renderThread(ref, get, o.explorerNet));
  o.outbox.registerRenderer(MISMATCH_RENDERER, (ref) => renderServiceMismatch(ref, get));
  o.outbox.registerRenderer(DM_RENDERER, (ref) => renderDm(ref, get, cardPointer));
  o.outbox.registerRenderer(APPROVER_DM_RENDERER, (ref) => renderApproverDm(ref, get, cardPointer));
  /**
   * The approvers are asked (and a form's requester told) once the card exists, so the DMs link
   * to it (chat.getPermalink): the outbox says when the card is posted. Not in the request's
   * commit, hence `heal()` at start does it again for every pending request whose card is
   * posted: the DM keys make that idempotent, so each goes out once however often this runs.
   */
  o.outbox.onPosted((key) => {
    const id = cardRequestId(key);
    if (id !== undefined) void askApprovers(id);
  });
  async function askApprovers(id: string): Promise<void> {
    try {
      const r = get(id);
      if (r?.state !== 'pending' || !o.outbox.message(cardKey(id))?.ts) return;
      const users = await approversToAsk(
        o.policy.current(),
        r,
        o.groups,
        (group, err) =>
          o.logger.warn(
            { group, err: err instanceof Error ? err.message : String(err) },
            'could not list an approver group; its members are not asked by DM',
          ),
        delegationIn(o.store, (o.now ?? Date.now)()),
      );
      await cardPermalink(id);
      await o.store.commit((tx) => {
        // Still waiting, and each approver at most once (a restart's heal() may get here again).
        if (tx.get<WithdrawalRequest>(WITHDRAWALS, id)?.state !== 'pending') return;
        for (const dm of cardPostedDms(r, users)) if (!tx.get(COLLECTIONS.messages, dm.key!)) o.outbox.enqueue(tx, dm);
      });
    } catch (err) {
      // The store closed (shutdown) or failed: the next start's heal() asks again.
      o.logger.warn(
        { err: err instanceof Error ? err.message : String(err), id },
        'could not ask the approvers of a withdrawal by DM yet',
      );
    }
  }

  return {
    cardPermalink,
    cardPointer,
    onChange(event, tx) {
      // A batch row has no card of its own: the batch's one card tells its progress (src/batches/).
      // What an admin must look at (a contradiction, a hold) is still said.
      if (event.request.batch && !needsAdminAttention(event)) return;
      for (const req of withdrawalMessages(event, o.policy.current(), o.service)) {
        // A card never queued (a family member's, say; heal() posts it, current): nothing to update
        // or reply under, and the outbox would throw, losing this commit (a hold with it).
        if ((req.op === 'update' || req.op === 'reply') && req.key && !tx.get(COLLECTIONS.messages, req.key)) continue;
        o.outbox.enqueue(tx, req);
      }
    },
    async heal() {
      // Approvers of requests whose card is posted are asked now (if not yet); the others once it is.
      await Promise.all(o.service.list({ state: 'pending' }).map((r) => askApprovers(r.id)));
      const missing = o.service.list().filter((r) => !r.batch && !o.outbox.message(cardKey(r.id)));
      if (!missing.length) return;
      o.logger.warn({ count: missing.length }, 'posting approval cards that were never queued');
      await o.store.commit((tx) => {
        for (const r of missing)
          o.outbox.enqueue(tx, {
            op: 'post',
            renderer: CARD_RENDERER,
            ref: r.id,
            key: cardKey(r.id),
            channel: o.policy.current().channels.approvals,
          });
      });
    },
  };
}
