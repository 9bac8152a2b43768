/**
 * How often a batch's card is edited while its rows are sent: at most once every `everyMs` per
 * card, and once more after the last change (so the card never stays behind). A decision's edit
 * (approved, stopped, done) is never held back; it only restarts the window.
 */
export const PROGRESS_EVERY_MS = 5_000;
/** chat.update is a Tier 3 method: about 50 calls a minute (Slack's rate limits). */
export const CHAT_UPDATE_PER_MINUTE = 50;

export function editThrottle(o: { everyMs?: number; now: () => number; later: (id: string) => void }) {
  const every = o.everyMs ?? PROGRESS_EVERY_MS;
  const last = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  return {
    /** A progress change: true when the card may be edited now (counted); else an edit is scheduled. */
    offer(id: string): boolean {
      const since = o.now() - (last.get(id) ?? Number.NEGATIVE_INFINITY);
      if (since >= every) {
        // This edit covers a trailing one still waiting (its timer late on a busy machine): one edit, not two.
        const pending = timers.get(id);
        if (pending) clearTimeout(pending);
        timers.delete(id);
        last.set(id, o.now());
        return true;
      }
      if (!timers.has(id)) {
        const t = setTimeout(() => {
          timers.delete(id);
          last.set(id, o.now());
          o.later(id);
        }, every - since);
        t.unref();
        timers.set(id, t);
      }
      return false;
    },
    /** An edit made for a decision: the window starts again from it. */
    edited(id: string): void {
      last.set(id, o.now());
    },
    close(): void {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
