/**
 * What goes first when work competes for the one event loop, shared by the parts it orders:
 * - Slack requests are acknowledged before the work behind them (src/slack/acks-first.ts):
 *   the listeners' follow-ups, and the outbox's posts too, wait while a burst is acknowledged;
 * - a withdrawal's wallet call goes before the Slack posts its approval causes
 *   (src/util/give-way.ts).
 * Built before the outbox and the Slack app, which both take it.
 */
import { ackQueue, type AckQueue } from '../slack/acks-first.js';
import { giveWay, type GiveWay } from '../util/give-way.js';

export interface WorkOrder {
  acks: AckQueue;
  sendsFirst: GiveWay;
  /** Awaited by the outbox before each attempt. */
  outboxWaits(): Promise<void>;
}

export function workOrder(): WorkOrder {
  const acks = ackQueue();
  const sendsFirst = giveWay();
  return {
    acks,
    sendsFirst,
    async outboxWaits() {
      await acks.afterAcks();
      await sendsFirst.clear();
    },
  };
}
