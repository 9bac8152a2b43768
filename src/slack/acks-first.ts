/**
 * Acks first. Slack gives every request 3 s to be acknowledged; the work after an ack (a
 * wallet call, rendering, a response_url post, a QR code) has minutes. Yet on one event loop a
 * listener's work resumes the moment its own ack is written, so under a burst each request's
 * follow-up runs before the next request is even parsed, and the last ack of a hundred waits
 * for ninety-nine follow-ups' first steps. The queue below counts requests that arrived and
 * are not acknowledged yet; a listener resumes after its ack only once that count is zero (the
 * whole burst acknowledged), or after `maxWaitMs` at the latest so that a steady stream of
 * requests never starves the work behind it. The HTTP answer itself is never delayed.
 */

export interface AckQueue {
  /** A request arrived; call the returned function when it has been answered (more calls are ignored). */
  arrived(): () => void;
  /** Resolves when no arrived request waits for its answer, or after maxWaitMs. */
  afterAcks(): Promise<void>;
  /** Requests arrived and not answered yet. */
  readonly unanswered: number;
}

/** Long enough for a burst of a hundred to be acknowledged, short beside the 3 s a trigger_id lives. */
export const MAX_DEFER_MS = 500;

export function ackQueue(maxWaitMs = MAX_DEFER_MS): AckQueue {
  let unanswered = 0;
  let parked: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let checkScheduled = false;

  const release = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const waiting = parked;
    parked = [];
    for (const resume of waiting) resume();
  };
  // setImmediate: requests whose bytes are already here are read (and counted) before the
  // check, so a burst still arriving is not mistaken for the end of one.
  const check = () => {
    if (checkScheduled || parked.length === 0 || unanswered > 0) return;
    checkScheduled = true;
    setImmediate(() => {
      checkScheduled = false;
      if (unanswered === 0) release();
    });
  };

  return {
    arrived() {
      unanswered++;
      let answered = false;
      return () => {
        if (answered) return;
        answered = true;
        unanswered--;
        check();
      };
    },
    afterAcks() {
      return new Promise<void>((resume) => {
        parked.push(resume);
        if (!timer) {
          // Not unref'd: work parked here still runs if the process is about to go idle.
          timer = setTimeout(release, maxWaitMs);
        }
        check();
      });
    },
    get unanswered() {
      return unanswered;
    },
  };
}
