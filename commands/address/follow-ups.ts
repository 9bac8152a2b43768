/**
 * At most this many /address follow-ups (wallet call, reply, QR upload) run at once; the
 * rest wait their turn. A burst of commands thus gets its acks answered first instead of
 * sharing the event loop with a hundred follow-ups already under way.
 */
const FOLLOW_UPS_AT_ONCE = 8;
let followUps = 0;
const turns: Array<() => void> = [];

export async function behindAcks(work: () => Promise<void>): Promise<void> {
  if (followUps < FOLLOW_UPS_AT_ONCE) followUps++;
  else await new Promise<void>((r) => turns.push(r)); // the finishing one hands its place over
  try {
    await work();
  } finally {
    const next = turns.shift();
    if (next) next();
    else followUps--;
  }
}
