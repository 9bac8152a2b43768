/**
 * The message metadata every post carries: the renderer's event (a card's or an alert's, for
 * other apps: src/slack/message-metadata.ts), or the outbox's own `treasury_outbox`, and always
 * `outbox_id`, the entry's id, by which a post whose answer was lost is found again (attempts.ts).
 */
import type { Rendered } from './types.js';

export const METADATA_EVENT_TYPE = 'treasury_outbox';

/** The metadata a message is posted (or edited) with. */
export function metadataOf(r: Rendered, outboxId: string) {
  return r.metadata
    ? { event_type: r.metadata.event_type, event_payload: { ...r.metadata.event_payload, outbox_id: outboxId } }
    : { event_type: METADATA_EVENT_TYPE, event_payload: { outbox_id: outboxId } };
}
