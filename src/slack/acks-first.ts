/**
 * Acks first. Slack gives every request 3 s to be acknowledged; the work after an ack (a
 * wallet call, rendering, a response_url post, a QR code) has minutes. Yet on one event loop a
 * listener's work resumes the moment its own ack is written, so under a burst each request's
 * follow-up runs before the next request is even parsed, and the last ack of a hundred waits
 * for ninety-nine follow-ups' first steps. The queue below counts requests that arrived and
 * are not acknowledged yet; a listener resumes after its ack only once that count is zero (the
 * whole burst acknowledged), or after `maxWaitMs` at the latest so that a steady stream of
 * requests never starves the work behind it. The HTTP answer itself is never delayed.
 * While requests keep arriving, "acknowledged" means quiet too: nothing arrived for QUIET_MS
 * (below). A lone request on an idle app (an approval click) does not wait for that: its
 * follow-up (the commits, then the wallet call) starts on the next turn of the loop.
 *
 * Parked listeners resume one per turn of the event loop, oldest first, never all in one go:
 * each one's first step (building a wallet call or a Slack request, rendering) is synchronous,
 * and a hundred of them resumed together ran as one block of several hundred milliseconds
 * that every request arriving meanwhile waited behind (measured: bench/slack-ack.bench.ts,
 * "longest event-loop stall"). One per turn lets the loop read new requests in between; if
 * one arrives, the rest wait again until it is answered (or until their cap: those past it
 * resume whatever arrives, DUE_PER_TURN a turn, so that a stream of requests can starve
 * neither them nor the acks).
 */

export interface AckQueue {
  /** A request arrived; call the returned function when it has been answered (more calls are ignored). */
  arrived(): () => void;
  /**
   * Resolves when no arrived request waits for its answer and, if requests are still arriving
   * (two within quietMs), none arrived for quietMs (in its turn among the parked); or after maxWaitMs.
   */
  afterAcks(): Promise<void>;
  /** Requests arrived and not answered yet. */
  readonly unanswered: number;
}

/** Long enough for a burst of a hundred to be acknowledged, short beside the 3 s a trigger_id lives. */
export const MAX_DEFER_MS = 500;

interface Parked {
  resume: () => void;
  /** When it resumes even if requests still wait for their ack (performance.now()). */
  due: number;
}

/**
 * A burst's requests do not all arrive at once (connections open, bodies are read over a few
 * turns of the loop): between two of them the count can touch zero. Work resumes only once no
 * request has arrived for this long, so it does not start in such a gap and delay the rest of
 * the burst's acks (measured on 100 concurrent approval clicks: ack p99 several times a bare
 * Bolt app's without it, within 2x with it). The window applies only while requests are
 * arriving, i.e. when the last one came within QUIET_MS of the one before it: a lone request
 * on an idle app has nothing to make way for, and its follow-up starts at once (an approval
 * click waited the whole window before its wallet call: 38 ms against 0.7 ms for its commits).
 */
export const QUIET_MS = 30;

/**
 * Parked work past its cap resumes this many a turn, oldest first: a hundred follow-ups resumed
 * in one go run their first steps as one block that every request arriving meanwhile waits
 * behind; a few a turn still drain far faster than requests come.
 */
export const DUE_PER_TURN = 8;

export function ackQueue(maxWaitMs = MAX_DEFER_MS, quietMs = QUIET_MS): AckQueue {
  let unanswered = 0;
  let lastArrival = -Infinity;
  // The arrival before the last one: the two close together mean requests are still coming.
  let previousArrival = -Infinity;
  // Oldest first; all share maxWaitMs, so the first one is always the first due.
  const parked: Parked[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;
  let stepScheduled = false;

  const waiting = () => parked.length - head;

  // Not unref'd: work parked here still runs if the process is about to go idle.
  // The next step at `at` (or the oldest's cap, if sooner); replaces any timer set before.
  // Each answer of a burst re-arms it for the same moment (the oldest's cap): kept as it is then,
  // since clearing and setting a hundred timers a burst showed in the ack path's profile.
  let timerAt = Number.NaN;
  const armTimer = (at = Infinity) => {
    const target = waiting() === 0 ? Number.NaN : Math.min(at, parked[head]!.due);
    if (timer && target === timerAt) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    timerAt = target;
    if (Number.isNaN(target)) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        schedule();
      },
      Math.max(0, target - performance.now()),
    );
  };

  // setImmediate: requests whose bytes are already here are read (and counted) before each
  // step, so a burst still arriving is not mistaken for the end of one.
  const schedule = () => {
    if (stepScheduled || waiting() === 0) return;
    stepScheduled = true;
    setImmediate(step);
  };

  const take = (): Parked => {
    const p = parked[head]!;
    parked[head++] = undefined as unknown as Parked; // let it be collected
    if (head === parked.length) {
      parked.length = 0;
      head = 0;
    } else if (head >= 1024 && head * 2 >= parked.length) {
      parked.splice(0, head);
      head = 0;
    }
    return p;
  };

  const step = () => {
    stepScheduled = false;
    if (waiting() === 0) return;
    const now = performance.now();
    if (parked[head]!.due <= now) {
      // Past the cap: those due resume whatever arrives (a steady stream of requests must not
      // starve them), a few a turn (resumed all together they would be one long block).
      const due: Parked[] = [];
      while (waiting() > 0 && due.length < DUE_PER_TURN && parked[head]!.due <= now) due.push(take());
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const p of due) p.resume();
      if (waiting() > 0 && parked[head]!.due <= now) schedule();
      else if (unanswered > 0) armTimer();
      else schedule();
      return;
    }
    if (unanswered > 0) {
      armTimer(); // an answer (check via arrived's callback) or the cap brings the next step
      return;
    }
    if (arriving(now)) {
      armTimer(lastArrival + quietMs);
      return;
    }
    if (timer) clearTimeout(timer);
    timer = undefined;
    take().resume();
    schedule();
  };

  // Requests are still coming: the last one is recent and came close after the one before it.
  const arriving = (now: number) => now - lastArrival < quietMs && lastArrival - previousArrival < quietMs;

  return {
    arrived() {
      unanswered++;
      previousArrival = lastArrival;
      lastArrival = performance.now();
      let answered = false;
      return () => {
        if (answered) return;
        answered = true;
        unanswered--;
        if (unanswered === 0) schedule();
      };
    },
    afterAcks() {
      return new Promise<void>((resume) => {
        parked.push({ resume, due: performance.now() + maxWaitMs });
        if (!timer) armTimer();
        schedule();
      });
    },
    get unanswered() {
      return unanswered;
    },
  };
}
