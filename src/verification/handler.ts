/**
 * GET /webhooks/wallet/:secret/verify?reference=<merchantReference>: the wallet service's
 * withdrawal verification callback (shared/spec/public-facts.md). Answers
 * `{ isVerified: true, checksum }` only for a withdrawal this app claimed for sending after a
 * full quorum, as approved in every field the call carries (fields.ts), while sends are not
 * frozen (verdict.ts); anything else `{ isVerified: false, checksum: "" }`.
 *
 * The same work whatever the reason: the secret is compared in constant time (against each
 * accepted one: during a rotation's overlap the previous one still answers), the lookup and
 * a checksum are always computed, and the verdict, its audit entry and (when the call is
 * refused and carries any reference) the admins' alarm or notice are written in one commit
 * before answering. A wrong secret is a 404, as on the webhook route, and is not audited (it
 * is not the service).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { appendAudit } from '../audit/log.js';
import { sendJson } from '../http/server.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import { noteRequest } from '../request-context.js';
import type { Store, Tx } from '../store/index.js';
import { WITHDRAWALS, type WithdrawalRequest } from '../withdrawals/index.js';
import {
  refusalKind,
  shortReference,
  VERIFICATION_ALERT_RENDERER,
  VERIFICATION_ALERTS,
  verificationAlertId,
  verificationAlertKey,
  type VerificationAlert,
} from './alerts.js';
import { secretMatches } from '../alerts/signature.js';
import { verificationChecksum } from './checksum.js';
import { askedSummary, judgeVerification, parseVerificationQuery, verificationAudit } from './decide.js';
import type { PolicySource } from '../policy/source.js';

export interface VerificationDeps {
  store: Store;
  outbox: Outbox;
  policy: PolicySource;
  /** The accepted webhook secrets (path segment): the current one, and the previous one during a rotation's overlap. */
  secret: () => string | readonly string[];
  /** The merchant's secret key (WALLET_API_KEY, or the sandbox's): the checksum's key. */
  secretKey: string;
  logger: Logger;
  now: () => number;
  /** The withdrawal rule table judged at the callback (the withdrawals service): why it may not go now, or undefined. */
  rules?: (req: WithdrawalRequest) => string | undefined;
  /**
   * A withdrawal of ours refused here by the rule table (`rules`: its words), inside the commit, once
   * per reference (with the alert): the
   * screening part tells the admins in private when its destination is sanctioned.
   */
  onRefused?: (tx: Tx, req: WithdrawalRequest, rules: string) => void;
}

export function verificationHandler(d: VerificationDeps) {
  return async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> => {
    const secretOk = secretMatches(params.secret ?? '', d.secret());
    const q = parseVerificationQuery(req.url);
    const { rawReference, reference } = q;
    // Looked up and hashed whatever happens next, so the answer time does not tell the reason.
    const request = d.store.find(WITHDRAWALS, (r) => q.valid && r.merchantReference === reference)[0];
    verificationChecksum(d.secretKey, reference, request?.destination ?? '');
    if (!secretOk) {
      d.logger.warn({ route: '/webhooks/wallet/:secret/verify' }, 'verification call with a wrong secret refused');
      return sendJson(res, 404, { error: 'not found' });
    }
    const at = new Date(d.now()).toISOString();
    let answer: { isVerified: boolean; checksum: string };
    try {
      answer = await d.store.commit((tx) => {
        // Decided on what is stored now, in the same commit as its audit entry: a freeze or a
        // settlement committed before this call is always seen.
        const judged = judgeVerification(tx, q, d.secretKey, d.rules);
        const { cur, v, answer, mismatches } = judged;
        appendAudit(tx, { at, actor: 'system', action: 'verification', ...verificationAudit(q, judged) });
        // A withdrawal we are not sending was asked about, whatever its reference looks like: the
        // admins hear of it once per reference (an alarm unless the quorum approved it: alerts.ts).
        const kind = refusalKind(v.reason, cur?.state);
        const alertId = verificationAlertId(rawReference, kind);
        if (!v.isVerified && rawReference && !tx.get(VERIFICATION_ALERTS, alertId)) {
          const alert: VerificationAlert = {
            reference: shortReference(rawReference),
            reason: v.reason,
            kind,
            at,
            ...(cur
              ? {
                  state: cur.state,
                  destination: cur.destination,
                  amount: cur.amount,
                  currency: cur.currency,
                  network: cur.network,
                  requester: cur.requester,
                }
              : {}),
            ...(mismatches.length ? { asked: askedSummary(mismatches) } : {}),
          };
          tx.put(VERIFICATION_ALERTS, alertId, alert);
          if (cur && judged.policy) d.onRefused?.(tx, cur, judged.policy);
          d.outbox.enqueue(tx, {
            op: 'post',
            renderer: VERIFICATION_ALERT_RENDERER,
            ref: alertId,
            key: verificationAlertKey(alertId),
            channel: d.policy.current().channels.approvals,
          });
        }
        return answer;
      });
    } catch (err) {
      // The store refuses writes (a full disk): the verdict is still the store's (a claim is
      // durable before its send), so a withdrawal the quorum approved is not refused for a
      // disk blip; what could not be audited is logged, loudly, with the same facts.
      const { cur, v, answer: given } = judgeVerification(d.store, q, d.secretKey, d.rules);
      d.logger.error(
        { err, merchantReference: reference || null, verdict: v.reason, request: cur?.id ?? null },
        'verification call answered but could not be written to the audit log',
      );
      answer = given;
    }
    d.logger.info({ verified: answer.isVerified }, 'wallet service verification call answered');
    noteRequest({ answer: String(answer.isVerified) });
    sendJson(res, 200, answer);
  };
}
