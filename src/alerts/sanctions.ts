/**
 * A deposit whose sender is on the sanctions list (src/screening): flagged on its alert ("from an
 * address on the OFAC sanctions list"), never with `@here`, audited, and the admins told at once in
 * private. The sender is the notification's (DepositAddress, or a sender field), or the wallet
 * history record's `fromAddress` once the alert is checked against it. Told once per alert, once confirmed.
 */
import { appendAudit } from '../audit/log.js';
import type { ListedVerdict } from '../screening/service.js';
import type { ScreeningNotice } from '../screening/types.js';
import type { Tx } from '../store/index.js';
import type { Alert } from './types.js';

/** What the alerts are given of screening (the app's screening part). */
export interface DepositScreening {
  listed(address: string | undefined): ListedVerdict | undefined;
  tell(tx: Tx, notice: ScreeningNotice): void;
}

/**
 * The alert, flagged when its deposit came from a sanctioned sender. Both senders are screened: the
 * notification's (a claim: webhooks can be forged) and the history record's `fromAddress` (the
 * service's own answer, `fromHistory`); listed if either is. Until the service's history confirms
 * the deposit it is only flagged as reported (`reported`): no audit of a sanctioned deposit and no
 * admin told that funds are in the wallet. Once confirmed, audited and told once.
 */
export function screenDeposit(
  tx: Tx,
  alert: Alert,
  screening: DepositScreening | undefined,
  now: number,
  fromHistory?: string,
): Alert {
  if (!screening || alert.kind !== 'deposit') return alert;
  const confirmed = alert.verification.state === 'confirmed';
  if (alert.sanctioned && (!alert.sanctioned.reported || !confirmed)) return alert;
  const v =
    screening.listed(fromHistory) ??
    screening.listed(alert.depositAddress) ??
    screening.listed(alert.senderAddress) ??
    (alert.sanctioned ? { ...alert.sanctioned, list: { ...alert.sanctioned.list } } : undefined);
  if (!v) return alert;
  const at = new Date(now).toISOString();
  const next: Alert = {
    ...alert,
    // Never @here for it: the admins are told in private instead (once confirmed).
    mention: false,
    ...(alert.depositAddress || alert.senderAddress ? {} : { depositAddress: v.address }),
    sanctioned: {
      address: v.address,
      by: v.by,
      at,
      list: { date: v.list.date, sha256: v.list.sha256 },
      ...(confirmed ? {} : { reported: true as const }),
    },
  };
  if (!confirmed) return next;
  const reason =
    v.by === 'list'
      ? `the sender ${v.address} is on the OFAC sanctions list of ${v.list.date.slice(0, 10)}`
      : `the sanctions screening service identifies the sender ${v.address} as sanctioned`;
  appendAudit(tx, {
    at,
    actor: 'system',
    action: 'sanctions_deposit',
    subject: alert.id,
    details: {
      hash: alert.hash ?? null,
      amount: alert.amount ?? null,
      currency: alert.currency ?? null,
      network: alert.network ?? null,
      sender: v.address,
      by: v.by,
      list: { date: v.list.date, sha256: v.list.sha256 },
    },
  });
  screening.tell(tx, {
    kind: 'deposit',
    at,
    address: v.address,
    ...(alert.amount ? { amount: alert.amount } : {}),
    ...(alert.currency ? { currency: alert.currency } : {}),
    ...(alert.network ? { network: alert.network } : {}),
    reason,
    list: { date: v.list.date, sha256: v.list.sha256 },
    once: `deposit:${alert.id}`,
  });
  return next;
}
