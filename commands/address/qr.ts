/**
 * The QR code of a deposit address, and its delivery to the person's DM. Drawing is kept in
 * `qrPng` alone, so how it is drawn (here: on the event loop, cached) can change without
 * touching the listener.
 */
import type { App } from '@slack/bolt';
import QRCode from 'qrcode';
import type { Logger } from '../../src/log.js';
import { dmChannel } from '../../src/slack/guard.js';
import type { AddressArgs } from './parse.js';

/**
 * Drawing a QR code is CPU work on the event loop (~10-25 ms): at a burst of commands it
 * delays other requests' acks. The same address always gives the same image, so images are
 * kept (a bounded map, oldest out first), and PNG filtering is off: a few more bytes, a third
 * of the time.
 */
const QR_CACHE_SIZE = 500;
const qrCache = new Map<string, Buffer>();

export async function qrPng(address: string): Promise<Buffer> {
  const hit = qrCache.get(address);
  if (hit) return hit;
  // filterType is pngjs's option, passed through by qrcode; @types/qrcode does not list it.
  const rendererOpts = { filterType: 0 } as NonNullable<QRCode.QRCodeToBufferOptions['rendererOpts']>;
  const png = await QRCode.toBuffer(address, { type: 'png', width: 256, margin: 2, errorCorrectionLevel: 'M', rendererOpts });
  if (qrCache.size >= QR_CACHE_SIZE) qrCache.delete(qrCache.keys().next().value!);
  qrCache.set(address, png);
  return png;
}

/** The QR code goes to the user's DM (ephemeral replies cannot carry files); false if it could not be sent. */
export async function sendQrCode(logger: Logger, client: App['client'], userId: string, args: AddressArgs, address: string): Promise<boolean> {
  try {
    const png = await qrPng(address);
    await client.files.uploadV2({
      channel_id: await dmChannel(client, userId),
      file: png,
      filename: `${args.currency.name}-${args.network.name}-${address}.png`,
      title: `${args.currency.name} on ${args.network.name}: ${address}`,
      initial_comment: `QR code of ${args.email}'s ${args.currency.name} deposit address on ${args.network.name}: \`${address}\``,
    });
    return true;
  } catch (err) {
    logger.warn({ err }, 'could not upload the QR code');
    return false;
  }
}
