/**
 * The QR code of a deposit address, and its delivery to the person's DM. Drawing is kept in
 * `qrPng` alone, so how it is drawn (here: in a worker pool, cached) can change without
 * touching the listener.
 */
import type { App } from '@slack/bolt';
import { depositWarning } from '../../src/format/network.js';
import type { Logger } from '../../src/log.js';
import { dmChannel } from '../../src/slack/guard.js';
import { lazyWorkerPool } from '../../src/util/worker-pool.js';
import type { AddressArgs } from './parse.js';
import { outside, outsideCode, outsidePlain } from '../../src/format/outside.js';

/**
 * Drawing a QR code is CPU work (~10-25 ms): on the event loop, a burst of commands would
 * delay every other request's ack. It runs in a small worker pool instead (piscina; the
 * worker is plain .mjs so it loads the same under tsx, vitest and the benchmarks). The same
 * address always gives the same image, so images are kept (a bounded map, oldest out first).
 */
const QR_CACHE_SIZE = 500;
const qrCache = new Map<string, Buffer>();
// One thread kept ready: /address is the command a burst is most likely made of.
const pool = lazyWorkerPool(new URL('./qr-worker.mjs', import.meta.url), { minThreads: 1 });

/** Starts the pool's thread (and loads qrcode in it) before the first command, not during a burst of them. */
export function warmQrPool(logger: Logger): void {
  pool()
    .run({ text: 'warm-up' })
    .catch((err: unknown) => logger.warn({ err }, 'the QR code worker did not start; QR codes will not be sent'));
}

export async function qrPng(address: string): Promise<Buffer> {
  const hit = qrCache.get(address);
  if (hit) return hit;
  const drawn: Uint8Array = await pool().run({ text: address });
  // Structured clone hands back a Uint8Array; the upload wants a Buffer (a view, no copy).
  const png = Buffer.from(drawn.buffer, drawn.byteOffset, drawn.byteLength);
  if (qrCache.size >= QR_CACHE_SIZE) qrCache.delete(qrCache.keys().next().value!);
  qrCache.set(address, png);
  return png;
}

/** The QR code goes to the user's DM (ephemeral replies cannot carry files); false if it could not be sent. */
export async function sendQrCode(
  logger: Logger,
  client: App['client'],
  userId: string,
  args: AddressArgs,
  address: string,
): Promise<boolean> {
  try {
    const png = await qrPng(address);
    await client.files.uploadV2({
      channel_id: await dmChannel(client, userId),
      file: png,
      filename: `${args.currency.name}-${args.network.name}-${outsidePlain(address, 120).replace(/[^\w.-]/g, '_')}.png`,
      title: `${args.currency.name} on ${args.network.name}: ${outsidePlain(address)}`,
      // The warning travels with the image: the QR code is what gets forwarded to payers.
      initial_comment: `QR code of ${outside(args.email)}'s ${args.currency.name} deposit address on ${args.network.name}: ${outsideCode(address)}\n:warning: *${depositWarning(args.currency.name, args.network.name)}*`,
    });
    return true;
  } catch (err) {
    logger.warn({ err }, 'could not upload the QR code');
    return false;
  }
}
