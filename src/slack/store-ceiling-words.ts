/**
 * The embedded store's ceiling warning (src/jobs/store-ceiling.ts), in words for the admins:
 * status first (how full), what it costs, that nothing is lost, and what to do (PostgreSQL).
 */
import { z } from 'zod';
import { STORE_CEILING_RENDERER, type CeilingNotice } from '../jobs/store-ceiling.js';
import type { Outbox, Rendered } from '../outbox/index.js';
import { mention, section } from './blocks.js';

const noticeSchema = z.object({
  records: z.number().int().nonnegative(),
  ceiling: z.number().int().positive(),
  mention: z.array(z.string()).optional(),
});

const count = (n: number) => n.toLocaleString('en-US');

export function storeCeilingText(n: CeilingNotice): string {
  const share = Math.floor((n.records / n.ceiling) * 100);
  const who = n.mention?.length ? `${n.mention.map((m) => mention(m)).join(' ')} ` : '';
  return (
    `${who}:warning: The app's records have reached ${share}% of what its built-in storage holds well ` +
    `(${count(n.records)} of ${count(n.ceiling)}). Past that, the app takes longer to start and needs more memory. ` +
    'Nothing is lost and everything still works. Plan the move to PostgreSQL, which keeps years of history ' +
    'without slowing down: see “Moving from the embedded store” in the “Run two replicas” guide.'
  );
}

export function renderStoreCeiling(ref: string): Rendered | null {
  let n: CeilingNotice;
  try {
    n = noticeSchema.parse(JSON.parse(ref));
  } catch {
    return null;
  }
  const text = storeCeilingText(n);
  return { text, blocks: [section(text)] };
}

/** Call before `outbox.start()` (an entry with no renderer is parked). */
export function registerStoreCeilingRenderer(outbox: Pick<Outbox, 'registerRenderer'>): void {
  outbox.registerRenderer(STORE_CEILING_RENDERER, renderStoreCeiling);
}
