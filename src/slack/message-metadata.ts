/**
 * Message metadata on the cards and alerts (issue 40), so a team's own workflows and apps can
 * react to what the treasury app posts (Slack's `message_metadata_posted` / `_updated` events,
 * or `conversations.history` with `include_all_metadata`) without reading its words:
 * - a withdrawal card: `treasury_withdrawal_requested` while it waits for approvals,
 *   `treasury_withdrawal_settled` once the service's answer settled it (completed or failed),
 *   `treasury_withdrawal_updated` in between and after (approved, sending, rejected, expired…);
 * - an alert: `treasury_deposit_confirmed` once the wallet's own history confirms a deposit,
 *   `treasury_<kind>_reported` before that (and for withdrawals, remittances, transfers).
 *
 * The payload carries ids, states and exact amounts as text (never a float), never a person's
 * e-mail, an address or a note: a workflow reads the rest from the app or the wallet. Event
 * types are letters, digits and underscores, as Slack asks. The outbox adds its own `outbox_id`
 * (how it finds a post whose answer was lost), so it is a reserved key here.
 */
import type { Alert } from '../alerts/types.js';
import { marketUsd } from '../prices/value.js';
import type { WithdrawalRequest } from '../withdrawals/types.js';

export type MetadataPayload = Record<string, string | number | boolean>;

export interface MessageMetadata {
  event_type: string;
  event_payload: MetadataPayload;
}

/** A value longer than any id, hash or amount is cut: a webhook's fields are claims, bounded here too. */
const MAX_VALUE = 200;

/** Only what is there: Slack's payload values are strings, numbers or booleans. */
function compact(o: Record<string, string | number | boolean | undefined | null>): MetadataPayload {
  const out: MetadataPayload = {};
  for (const [k, v] of Object.entries(o))
    if (v !== undefined && v !== null && v !== '') out[k] = typeof v === 'string' ? v.slice(0, MAX_VALUE) : v;
  return out;
}

export function withdrawalMetadata(r: WithdrawalRequest): MessageMetadata {
  const settled = r.state === 'completed' || r.state === 'failed';
  return {
    event_type:
      r.state === 'pending'
        ? 'treasury_withdrawal_requested'
        : settled
          ? 'treasury_withdrawal_settled'
          : 'treasury_withdrawal_updated',
    event_payload: compact({
      withdrawal_id: r.id,
      merchant_reference: r.merchantReference,
      service_reference: r.result?.serviceReference,
      state: r.state,
      amount: r.amount,
      currency: r.currency,
      network: r.network,
      approvals: r.approvals.length,
      approvals_needed: r.tier.approvals,
      // What it was worth at the market when asked, not the (higher) price a limit judged it at.
      value_usd: r.valuation?.kind === 'known' ? marketUsd(r.valuation) : undefined,
      fee: r.result?.fee,
      fee_currency: r.result?.fee ? (r.result.feeCurrency ?? r.currency) : undefined,
      transaction_hash: r.result?.transactionHash,
      requested_at: r.createdAt,
    }),
  };
}

export function alertMetadata(a: Alert): MessageMetadata {
  const confirmed = a.verification.state === 'confirmed';
  const kind = a.kind === 'unknown' ? 'transaction' : a.kind;
  return {
    event_type: kind === 'deposit' && confirmed ? 'treasury_deposit_confirmed' : `treasury_${kind}_reported`,
    event_payload: compact({
      alert_id: a.id,
      kind: a.kind,
      verification: a.verification.state,
      status: a.status,
      amount: a.amount,
      currency: a.currency,
      network: a.network,
      transaction_hash: a.hash,
      merchant_reference: a.merchantReference,
      value_usd: a.value?.kind === 'known' ? marketUsd(a.value) : undefined,
    }),
  };
}
