/**
 * The wallet service's status for our reference must be about OUR withdrawal: when it carries a
 * destination or an amount, they must be the request's (the destination compared as its address
 * family requires, the amount as a decimal; wallet-answer.ts `statusMismatches`). An answer naming
 * another reference never gets this far (the client reads it as a malformed answer: unreachable).
 *
 * A mismatching answer settles nothing, shows nothing and judges no claim: it is audited
 * (`service_mismatch`, again only when what differs changes) and told to the admins once per
 * request (event `service-mismatch`). The request stays as it is for the next question or an admin.
 */
import type { Decision } from './decide/types.js';
import type { ServiceWord } from './decide/types.js';
import { about } from './rules.js';
import { SYSTEM, type WithdrawalRequest } from './types.js';

/** `service`: the service's status in its own name (notice.ts SERVICE_NAMES). */
export function decideServiceMismatch(
  word: ServiceWord,
  cur: WithdrawalRequest,
  at: string,
  service: string,
): Decision {
  const mismatches = [...(word.mismatches ?? [])];
  const prev = cur.serviceMismatch;
  // The same answer again (the reconcile job asks every run): already audited, already told.
  if (prev && prev.service === service && prev.mismatches.join('\n') === mismatches.join('\n'))
    return { kind: 'unchanged', request: cur };
  const first = !prev;
  return {
    kind: 'changed',
    next: { ...cur, serviceMismatch: { at: prev?.at ?? at, service, mismatches, lastAt: at } },
    audit: {
      at,
      actor: SYSTEM,
      action: 'service_mismatch',
      subject: cur.id,
      details: {
        ...about(cur),
        service,
        via: word.via,
        mismatches,
        state: cur.state,
        reason: "the wallet service's answer for this reference does not match the request: nothing was settled on it",
        ...(first ? {} : { toldBefore: prev.at }),
      },
    },
    // The admins are told once per request; later differences are in the audit log.
    event: first ? 'service-mismatch' : 'notice',
  };
}
