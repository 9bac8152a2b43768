/**
 * The words of screening's notices to the admins (src/screening/notices.ts queues them): a request
 * refused because its destination is sanctioned, one stopped later for the same reason, and a
 * deposit from a sanctioned sender. Status first, then what and who, then the list it was judged
 * with (its date and fingerprint, as the audit log names it).
 */
import { z } from 'zod';
import { formatAmount } from '../format/amount.js';
import { outside, outsideCode } from '../format/outside.js';
import { utcDay } from '../format/time.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import { SCREENING_NOTICE_RENDERER } from '../screening/notices.js';
import { mention, section } from './blocks.js';

const noticeSchema = z.object({
  kind: z.enum(['request-refused', 'stopped', 'deposit', 'list-refused']),
  at: z.string(),
  address: z.string(),
  amount: z.string().optional(),
  currency: z.string().optional(),
  network: z.string().optional(),
  requester: z.string().optional(),
  reason: z.string(),
  list: z.object({ date: z.string(), sha256: z.string() }).optional(),
  mention: z.array(z.string()).optional(),
});

const HEADLINE = {
  'request-refused': ':no_entry: *A withdrawal to a sanctioned address was refused*',
  stopped: ':no_entry: *A withdrawal was stopped: its destination is now sanctioned*',
  deposit: ':no_entry: *A deposit came from an address on the OFAC sanctions list*',
  'list-refused': ':warning: *The sanctions list was not refreshed: the copy read is not trusted*',
} as const;

const BODY = {
  deposit: (money: string, address: string) =>
    `${money}from ${address}. The funds are in the wallet: decide with your compliance officer what to do with them; nothing was posted to the channel with @here.`,
  'list-refused': (_money: string, address: string) =>
    `Read from ${address}. Screening goes on with the list kept below; if the source really changed this much, have an engineer check it and replace the list.`,
} as const;

export function renderScreeningNotice(ref: string): Rendered | null {
  const parsed = noticeSchema.safeParse(
    (() => {
      try {
        return JSON.parse(ref);
      } catch {
        return undefined;
      }
    })(),
  );
  if (!parsed.success) return null;
  const n = parsed.data;
  const who = n.mention?.length ? `${n.mention.map((m) => mention(m)).join(' ')} ` : '';
  const money = n.amount && n.currency ? `${formatAmount(n.amount, outside(n.currency, 20))}` : undefined;
  const where = n.network ? ` on ${outside(n.network, 40)}` : '';
  const lines = [
    `${who}${HEADLINE[n.kind]}`,
    n.kind === 'deposit' || n.kind === 'list-refused'
      ? BODY[n.kind](money ? `${money}${where} ` : '', outsideCode(n.address, 128))
      : `${money ? `${money}${where} ` : ''}to ${outsideCode(n.address, 128)}${n.requester ? `, requested by ${mention(n.requester)}` : ''}. Nothing was sent.`,
    `Why: ${outside(n.reason, 600)}`,
    ...(n.list
      ? [
          `Judged with the OFAC sanctions list of ${utcDay(n.list.date)} (sha256 \`${n.list.sha256.slice(0, 16)}…\`); it is in the audit log.`,
        ]
      : []),
  ];
  const text = lines.join('\n');
  return { text, blocks: [section(text)] };
}

/** Call before `outbox.start()` (an entry with no renderer is parked). */
export function registerScreeningNoticeRenderer(outbox: Pick<Outbox, 'registerRenderer'>): void {
  outbox.registerRenderer(SCREENING_NOTICE_RENDERER, (ref) => renderScreeningNotice(ref));
}
