/**
 * One kind of work going before another: from the approval that completes a withdrawal's
 * quorum until its call to the wallet service is on its way, the outbox's Slack posts wait. Both
 * compete for one event loop (a Slack call is a good deal of CPU), and on an idle app the
 * card's edits and thread lines, made durable together with the send's claim, otherwise went
 * out first and delayed the wallet call by milliseconds (measured: bench/withdrawals.bench.ts,
 * idle click to send). Whatever holds, a waiter goes on after `maxMs` at the latest: a slow
 * claim, or sends that keep coming, never hold the posts back for longer than that.
 */
export interface GiveWay {
  /** Work that goes first begins; call the returned function when it is done (later calls do nothing). */
  hold(): () => void;
  /** Resolves when nothing holds, or `maxMs` after the call, whichever comes first. */
  clear(): Promise<void>;
}

export const GIVE_WAY_MAX_MS = 50;

export function giveWay(maxMs = GIVE_WAY_MAX_MS): GiveWay {
  let holds = 0;
  let waiting: Array<() => void> = [];
  return {
    hold() {
      holds++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        holds--;
        if (holds > 0) return;
        const go = waiting;
        waiting = [];
        for (const resume of go) resume();
      };
    },
    clear() {
      if (holds === 0) return Promise.resolve();
      return new Promise<void>((resume) => {
        // Not unref'd: a post waiting here must still go out if nothing else keeps the process up.
        const cap = setTimeout(resume, maxMs);
        waiting.push(() => {
          clearTimeout(cap);
          resume();
        });
      });
    },
  };
}
