/**
 * The words for what the wallet's history does or does not back (ARCHITECTURE.md invariant 14):
 * a transaction told only by a notification is "reported", never ✅ confirmed, until the history
 * shows it; a withdrawal of ours shows its request's outcome; then the short @here post for a
 * large deposit; what the admins are told when
 * notifications cannot be trusted; and the flood summary of a channel. Decided in
 * src/alerts (posting.ts, notices.ts, sweep.ts); drawn here from the current records.
 */
import {
  ALERT_COLLECTIONS,
  FLOOD_RENDERER,
  isClaim,
  standing,
  TRUST_COLLECTIONS,
  TRUST_NOTICE_RENDERER,
  type Alert,
  type Flood,
  type TrustNotice,
} from '../alerts/index.js';
import { isFailure } from '../alerts/status.js';
import { formatAmount } from '../format/amount.js';
import { outside } from '../format/outside.js';
import { statusDetail, statusEmoji, statusWord } from '../format/status.js';
import { slackDate } from '../format/time.js';
import type { Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import type { Store } from '../store/index.js';
import { aKind } from './alert-kind-words.js';
import { context, mention, section } from './blocks.js';
import type { PolicySource } from '../policy/source.js';

interface Rendered {
  text: string;
  blocks: unknown[];
}

/** "10 minutes", "45 seconds": a grace in words. */
export function graceWords(ms: number): string {
  if (ms % 60_000 === 0 || ms >= 600_000) {
    const m = Math.round(ms / 60_000);
    return `${m} minute${m === 1 ? '' : 's'}`;
  }
  const sec = Math.round(ms / 1000);
  return `${sec} second${sec === 1 ? '' : 's'}`;
}

const capital = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

const amountOf = (a: Pick<Alert, 'amount' | 'currency'>) =>
  a.amount ? formatAmount(a.amount, a.currency) : 'amount not given';

const doubtful = (a: Alert) => a.verification.state === 'contradicted' || a.verification.flaggedAt !== undefined;

/**
 * Where an alert stands, status first, in plain words. A transaction told only by a notification
 * says "Reported by the wallet service · checking" (and what it claims, unless that is simply
 * confirmed); one the history contradicts or never showed says so. A withdrawal of ours stands
 * where its request settled (`standing`), never where a notification put it.
 */
export function statusLabel(a: Pick<Alert, 'status' | 'verification' | 'kind' | 'source'>): string {
  const now = standing(a);
  const detail = outside(statusDetail(now), 60);
  if (!isClaim(a)) return `${statusEmoji(now)} ${detail}`;
  const reported = outside(statusDetail(a.status), 60);
  if (a.verification.state === 'contradicted') return `:warning: ${reported} reported · the wallet's history disagrees`;
  if (a.verification.flaggedAt !== undefined) return `:warning: ${reported} reported · not in the wallet's history`;
  if (a.verification.request?.settled === 'FAILED')
    return `${statusEmoji(now)} ${detail} · its withdrawal request's outcome`;
  const plain = statusWord(now) === 'confirmed';
  return `${plain ? ':mag:' : statusEmoji(now)} Reported by the wallet service · checking${plain ? '' : ` (it says ${detail})`}`;
}

/** The warning an alert the wallet's history does not back carries at its top, if any. */
export function trustWarning(a: Alert): string | undefined {
  const v = a.verification;
  if (v.state === 'contradicted') {
    const diff = (v.mismatch ?? [])
      .map((m) => `${m.field} ${outside(m.listed, 60)} (the notification said ${outside(m.claimed, 60)})`)
      .join(', ');
    return `⚠️ A notification disagreed with the wallet service: it may be forged.${diff ? ` The wallet's history shows ${diff}.` : ''}`;
  }
  if (v.state === 'not_found' && v.flaggedAt !== undefined)
    return `⚠️ Not in the wallet's history after ${graceWords(v.graceMs ?? 0)}: this notification may be forged. No funds are counted from it.`;
  return undefined;
}

/** A batch line's status words. */
export function lineStatus(a: Alert): string {
  const now = standing(a);
  if (isFailure(now)) return `*${outside(statusDetail(now), 60)}*`;
  if (isClaim(a)) {
    if (a.verification.state === 'contradicted') return "*disagrees with the wallet's history: may be forged*";
    if (a.verification.flaggedAt !== undefined) return "*not in the wallet's history: may be forged*";
    return statusWord(now) === 'confirmed' ? 'reported · checking' : `${outside(statusDetail(now), 40)} · reported`;
  }
  return outside(statusDetail(now), 40);
}

export const lineEmoji = (a: Alert) =>
  isClaim(a) && !isFailure(standing(a)) ? (doubtful(a) ? ':warning:' : ':mag:') : statusEmoji(standing(a));

/** The short post that follows a large deposit once the wallet's history confirms it: the only @here. */
export function renderMention(a: Alert): Rendered {
  const what = `*${outside(amountOf(a), 120)}*${a.network ? ` on ${outside(a.network, 40)}` : ''}${a.clientEmail ? ` for ${outside(a.clientEmail)}` : ''}`;
  const text = `<!here> Large deposit confirmed by the wallet's history: ${what} (its alert in this channel: notified ${slackDate(a.createdAt)}).`;
  return { text, blocks: [section(text)] };
}

const NOTICE_HEAD: Record<TrustNotice['kind'], (n: TrustNotice, latest: Alert | undefined) => string> = {
  contradiction: () => 'A notification disagreed with the wallet service: it may be forged.',
  not_found: (n, latest) =>
    `${capital(aKind(latest?.kind ?? 'unknown'))} reported confirmed is not in the wallet's history after ${graceWords(n.graceMs ?? 600_000)}: the notification may be forged.`,
  flood: (n) =>
    `Many notifications the wallet's history does not show${n.channel ? ` in <#${n.channel}>` : ''}: the webhook URL may be leaked. An admin can rotate it with \`/treasury webhook rotate\`.`,
};

/** What the admins read (in the approvals channel, mentioned): one message per kind, its count kept current. */
export function renderTrustNotice(n: TrustNotice, latest: Alert | undefined, policy: Policy | undefined): Rendered {
  const admins = (policy?.people.admins ?? []).map((x) => mention(x)).join(' ');
  const head = `:rotating_light: ${admins ? `${admins} ` : ''}${NOTICE_HEAD[n.kind](n, latest)}`;
  const blocks: unknown[] = [section(head)];
  if (latest) {
    const where = latest.network ? ` on ${outside(latest.network, 40)}` : '';
    const client = latest.clientEmail ? `, client ${outside(latest.clientEmail)}` : '';
    const hash = latest.hash ? `, transaction \`${outside(latest.hash, 100)}\`` : '';
    blocks.push(
      section(`Latest: ${aKind(latest.kind)} of *${outside(amountOf(latest), 120)}*${where}${client}${hash}.`),
    );
  }
  const count = n.kind === 'flood' ? '' : `${n.count} notification${n.count === 1 ? '' : 's'} so far · `;
  blocks.push(
    context(
      `${count}first ${slackDate(n.firstAt)}, latest ${slackDate(n.lastAt)}. Nothing is counted on a notification's word alone; the audit log keeps each case.`,
    ),
  );
  return { text: head, blocks };
}

/** A channel's flood summary: the claims gathered into it that the history still does not show. */
export function renderFlood(f: Flood, now: number): Rendered {
  const minutes = Math.max(1, Math.ceil((now - f.startedAt) / 60_000));
  const span = minutes === 1 ? 'the last minute' : `the last ${minutes} minutes`;
  const text = `${f.unshown} notification${f.unshown === 1 ? '' : 's'} in ${span} that the wallet's history does not show`;
  const shown = f.total - f.unshown;
  return {
    text,
    blocks: [
      section(`:warning: *${text}.* They are not posted one by one and nothing is counted from them.`),
      context(
        `${shown ? `${shown} of ${f.total} turned up in the wallet's history since and were posted as news. ` : ''}One that turns up later is posted then. The admins have been told.`,
      ),
    ],
  };
}

export function registerTrustRenderers(
  outbox: Pick<Outbox, 'registerRenderer'>,
  store: Pick<Store, 'get'>,
  opts: { policy?: PolicySource },
): void {
  outbox.registerRenderer(TRUST_NOTICE_RENDERER, (ref) => {
    const n = store.get(TRUST_COLLECTIONS.notices, ref);
    if (!n) return null;
    const latest = n.latestAlertId ? store.get(ALERT_COLLECTIONS.alerts, n.latestAlertId) : undefined;
    return renderTrustNotice(n, latest, opts.policy?.current());
  });
  outbox.registerRenderer(FLOOD_RENDERER, (ref, ctx) => {
    const f = store.get(TRUST_COLLECTIONS.floods, ref);
    return f ? renderFlood(f, ctx.now) : null;
  });
}
