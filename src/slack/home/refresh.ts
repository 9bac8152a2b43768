/**
 * Keeps the App Home true after a decision made anywhere (the card, a modal, another person's
 * Home): on every withdrawal change, the Home is published again for the people whose Home shows
 * the request. Everyone who may view sees the team's queue there, so that is everyone who has
 * opened their Home lately (kept in memory: after a restart a Home is built afresh when opened;
 * a Home never opened is built when it first is). The person who decided reads what they did at the top,
 * replacing any older banner. Changes are gathered for a moment so a burst publishes each Home once.
 */
import type { WithdrawalEvent } from '../../withdrawals/index.js';
import { outside } from '../../format/outside.js';
import { amountText } from '../withdrawal/index.js';
import { payeeText } from '../queue-words.js';

/** Publishes one person's Home, with a banner or without. */
export type PublishHome = (user: string, notice?: string) => Promise<void>;

/** Within a second of the change, whatever the burst. */
const GATHER_MS = 150;
/**
 * Homes refreshed per change at most: views.publish is rate-limited per workspace (Slack's
 * tier 4), and the people who looked last are the likeliest to be looking now.
 */
const MAX_OPENED = 50;
/** A Home not opened for this long is refreshed when it is opened again, not on every change. */
const OPENED_FOR_MS = 12 * 3_600_000;

const isUser = (id: string) => /^[UW][A-Z0-9]+$/.test(id);

/** What the person who decided reads at the top of their Home, replacing any older banner. */
export function decisionNotice(event: WithdrawalEvent): { user: string; notice: string } | undefined {
  const r = event.request;
  const what = `*${outside(amountText(r))}* on ${outside(r.network, 30)} to ${payeeText(r)}`;
  if (event.type === 'approval-recorded' || event.type === 'approved') {
    const user = r.approvals.at(-1)?.user;
    if (!user) return undefined;
    const left = Math.max(0, r.tier.approvals - r.approvals.length);
    const after =
      event.type === 'approved'
        ? 'it had every approval it needs and is being sent.'
        : `it needs ${left} more approval${left === 1 ? '' : 's'}.`;
    return { user, notice: `:white_check_mark: Your approval of ${what} was recorded: ${after}` };
  }
  if (event.type === 'rejected' && r.rejection && r.rejection.user !== 'system')
    return {
      user: r.rejection.user,
      notice: `:no_entry: You rejected ${what}: “${outside(r.rejection.reason, 300)}”. The requester was told.`,
    };
  return undefined;
}

export interface HomeRefresher {
  /** Someone opened their Home: it is kept true from now on. */
  opened(user: string): void;
  /** A withdrawal changed: the Homes that show it are published again. */
  changed(event: WithdrawalEvent): void;
  /** Waits for the publishes under way (tests, shutdown). */
  idle(): Promise<void>;
}

export function homeRefresher(o: { publish: PublishHome; now: () => number; gatherMs?: number }): HomeRefresher {
  const opened = new Map<string, number>();
  const due = new Map<string, string | undefined>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  function flush(): void {
    timer = undefined;
    const batch = [...due];
    due.clear();
    running = running.then(async () => {
      for (const [user, notice] of batch) await o.publish(user, notice);
    });
  }

  function want(user: string, notice?: string): void {
    if (!isUser(user)) return;
    // A banner already due for this person is kept; a later change never wipes it.
    if (notice !== undefined || !due.has(user)) due.set(user, notice ?? due.get(user));
    timer ??= setTimeout(flush, o.gatherMs ?? GATHER_MS);
    timer.unref?.();
  }

  return {
    opened(user) {
      if (!isUser(user)) return;
      opened.delete(user);
      opened.set(user, o.now());
      while (opened.size > MAX_OPENED) opened.delete(opened.keys().next().value!);
    },
    changed(event) {
      // Only Homes people have opened: a Home nobody looked at is built when it is opened.
      const t = o.now();
      const looking = (user: string) => t - (opened.get(user) ?? Number.NEGATIVE_INFINITY) < OPENED_FOR_MS;
      const told = decisionNotice(event);
      if (told && looking(told.user)) want(told.user, told.notice);
      for (const user of opened.keys()) if (looking(user)) want(user);
    },
    idle: () => running,
  };
}
