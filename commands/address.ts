/**
 * /address <client-email> <currency> <network>: a client's deposit address, with a QR code.
 * The service returns the same address for the same client, currency and network, so
 * asking again is the way to look one up.
 */
import os from 'node:os';
import type { App } from '@slack/bolt';
import { Piscina } from 'piscina';
import { z } from 'zod';
import { refusal } from '../src/slack/access.js';
import { context, fields, header, section } from '../src/slack/blocks.js';
import { dmChannel, guarded } from '../src/slack/guard.js';
import { words } from '../src/slack/text.js';
import { CURRENCIES, NETWORKS, acceptedNames, lookup, type CurrencyMember, type EnumMember } from '../src/wallet/enums.js';
import type { WalletAddress } from '../src/wallet/schemas.js';
import type { CommandDeps } from './deps.js';

export const name = '/address';
const USAGE = 'Usage: `/address <client-email> <currency> <network>`, e.g. `/address alice@client.com USDT BSC`';

export type AddressArgs = { email: string; currency: CurrencyMember; network: EnumMember };

export function parseAddressArgs(text: string): { ok: true; args: AddressArgs } | { ok: false; errors: string[] } {
  const w = words(text);
  if (w.length !== 3) {
    return { ok: false, errors: [`expected 3 values (client e-mail, currency, network), got ${w.length}`] };
  }
  const [email, cur, net] = w as [string, string, string];
  const errors: string[] = [];
  if (!z.email().safeParse(email).success) errors.push(`“${email}” is not an e-mail address`);
  const currency = lookup(CURRENCIES, cur);
  if (!currency) errors.push(`unknown currency “${cur}”; accepted: ${acceptedNames(CURRENCIES)} (or their codes)`);
  const network = lookup(NETWORKS, net);
  if (!network) errors.push(`unknown network “${net}”; accepted: ${acceptedNames(NETWORKS)} (or their codes)`);
  if (errors.length || !currency || !network) return { ok: false, errors };
  return { ok: true, args: { email, currency, network } };
}

const STATUS_TEXT: Record<WalletAddress['status'], string> = {
  generated: ':white_check_mark: Generated: ready to receive funds',
  pending: ':hourglass_flowing_sand: Pending: the address is still being generated. Do not share it until `/address` shows it as generated.',
  failed: ':x: Generation failed: do not use this address. Try again later, or contact the wallet service if it keeps failing.',
  unknown: ':grey_question: Unknown generation status: check with the wallet service before sharing it.',
};

export function renderAddress(args: AddressArgs, a: WalletAddress, qrNote: string) {
  const blocks = [
    header(`Deposit address: ${args.currency.name} on ${args.network.name}`),
    section(a.address ? `\`\`\`${a.address}\`\`\`` : '_No address yet._'),
    fields([
      ['Client', args.email],
      ['Client id', `\`${a.merchantClientId}\``],
      ['Currency', args.currency.name],
      ['Network', args.network.name],
    ]),
    section(`*Status*\n${STATUS_TEXT[a.status]}${a.message ? `\n_${a.message}_` : ''}`),
    context(`The same client, currency and network always give this address. ${qrNote}`),
  ];
  return { text: `Deposit address for ${args.email} (${args.currency.name} on ${args.network.name}): ${a.address}`, blocks };
}

/**
 * Drawing a QR code is CPU work (~10-25 ms): on the event loop, a burst of commands would
 * delay every other request's ack. It runs in a small worker pool instead (piscina; the
 * worker is plain .mjs so it loads the same under tsx, vitest and the benchmarks). The same
 * address always gives the same image, so images are kept (a bounded map, oldest out first).
 */
const QR_CACHE_SIZE = 500;
const qrCache = new Map<string, Buffer>();
let qrPool: Piscina | undefined;

function pool(): Piscina {
  // Idle threads are unref'd by piscina and end after idleTimeout: they never hold the process open.
  qrPool ??= new Piscina({
    filename: new URL('./qr-worker.mjs', import.meta.url).href,
    minThreads: 1,
    maxThreads: Math.max(1, Math.min(2, os.availableParallelism() - 1)),
    idleTimeout: 30_000,
  });
  return qrPool;
}

/** Starts the pool's thread (and loads qrcode in it) before the first command, not during a burst of them. */
function warmQrPool(logger: CommandDeps['logger']): void {
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
async function sendQrCode(deps: CommandDeps, client: App['client'], userId: string, args: AddressArgs, address: string): Promise<boolean> {
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
    deps.logger.warn({ err }, 'could not upload the QR code');
    return false;
  }
}

/**
 * At most this many /address follow-ups (wallet call, reply, QR upload) run at once; the
 * rest wait their turn. A burst of commands thus gets its acks answered first instead of
 * sharing the event loop with a hundred follow-ups already under way.
 */
const FOLLOW_UPS_AT_ONCE = 8;
let followUps = 0;
const turns: Array<() => void> = [];

async function behindAcks(work: () => Promise<void>): Promise<void> {
  if (followUps < FOLLOW_UPS_AT_ONCE) followUps++;
  else await new Promise<void>((r) => turns.push(r)); // the finishing one hands its place over
  try {
    await work();
  } finally {
    const next = turns.shift();
    if (next) next();
    else followUps--;
  }
}

export function register(app: App, deps: CommandDeps): void {
  warmQrPool(deps.logger);
  app.command(name, async ({ command, ack, respond, client }) => {
    await ack();
    await behindAcks(() => guarded(deps.logger, respond, 'Address generation', async () => {
      const refused = await refusal(deps.policy, 'viewers', command.user_id, deps.groups);
      if (refused) return void (await respond({ response_type: 'ephemeral', text: refused }));
      const parsed = parseAddressArgs(command.text);
      if (!parsed.ok) {
        return void (await respond({ response_type: 'ephemeral', text: `:warning: ${parsed.errors.join('\n:warning: ')}\n${USAGE}` }));
      }
      const { args } = parsed;
      const address = await deps.wallet.generateAddress({ clientEmail: args.email, currency: args.currency, network: args.network });
      // The address first; the QR code follows (it takes several Slack calls that must not hold the answer back).
      const usable = address.status === 'generated' && address.address !== '';
      await respond({ response_type: 'ephemeral', ...renderAddress(args, address, usable ? 'A QR code of the address is on its way to your direct messages.' : '') });
      if (usable && !(await sendQrCode(deps, client, command.user_id, args, address.address))) {
        await respond({ response_type: 'ephemeral', replace_original: false, text: ':warning: The QR code could not be sent this time; the address above is all you need.' });
      }
    }));
  });
}
