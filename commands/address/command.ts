/**
 * /address <client-email> <currency> <network>: a client's deposit address, with a QR code.
 * The service returns the same address for the same client, currency and network, so
 * asking again is the way to look one up. Runs behind `requireRole('viewers')`, which acks.
 */
import type { App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { rememberAddress } from '../../src/clients/known.js';
import { outsideCode } from '../../src/format/outside.js';
import { networkWithStandard } from '../../src/format/network.js';
import { addressFamily, describeFormat, isValidAddress } from '../../src/wallet/addresses.js';
import { guarded } from '../../src/slack/guard.js';
import type { CommandDeps } from '../deps.js';
import { parseAddressArgs, USAGE, type AddressArgs } from './parse.js';
import { behindAcks } from './follow-ups.js';
import { sendQrCode } from './qr.js';
import { renderAddress } from './render.js';

type AddressCommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'respond'> & { client: App['client'] };

export function addressCommand(deps: CommandDeps) {
  return async ({ command, respond, client }: AddressCommandArgs): Promise<void> => {
    await behindAcks(() =>
      guarded(deps.logger, respond, 'Address generation', async () => {
        const parsed = parseAddressArgs(command.text);
        if (!parsed.ok) {
          return void (await respond({
            response_type: 'ephemeral',
            text: `:warning: ${parsed.errors.join('\n:warning: ')}\n${USAGE}`,
          }));
        }
        const { args } = parsed;
        const address = await deps.wallet.generateAddress({
          clientEmail: args.email,
          currency: args.currency,
          network: args.network,
        });
        // A "generated" address whose format does not fit the network (bc1… for BSC) is a service fault:
        // never shown as ready, QR'd or remembered, since funds sent to it would be lost.
        const family = addressFamily(args.network);
        if (address.status === 'generated' && address.address !== '' && !isValidAddress(family, address.address)) {
          deps.logger.warn(
            { currency: args.currency.name, network: args.network.name, length: address.address.length },
            'the wallet service returned a deposit address in a format that does not fit its network',
          );
          return void (await respond({ response_type: 'ephemeral', text: unexpectedFormat(args, address.address) }));
        }
        // The address first; the QR code follows (it takes several Slack calls that must not hold the answer back).
        const usable = address.status === 'generated' && address.address !== '';
        await respond({
          response_type: 'ephemeral',
          ...renderAddress(
            args,
            address,
            usable ? 'A QR code of the address is on its way to your direct messages.' : '',
          ),
        });
        if (usable) await remember(deps, args, address.address, command.user_id);
        if (usable && !(await sendQrCode(deps.logger, client, command.user_id, args, address.address))) {
          await respond({
            response_type: 'ephemeral',
            replace_original: false,
            text: ':warning: The QR code could not be sent this time; the address above is all you need.',
          });
        }
      }),
    );
  };
}

function unexpectedFormat(args: AddressArgs, returned: string): string {
  const net = networkWithStandard(args.network.name);
  return [
    `:x: *Not usable: do not share this address.* The wallet service returned an address in an unexpected format for ${net}: an address there is ${describeFormat(addressFamily(args.network))}.`,
    `Nothing was recorded and no QR code was made. Contact the wallet service; what it returned, for them: ${outsideCode(returned, 120)}`,
  ].join('\n');
}

/**
 * The client is now one the app has seen: a withdrawal from it is not flagged as a new client
 * (src/clients/known.ts). A store that refuses writes costs only that flag, never the answer.
 */
async function remember(deps: CommandDeps, args: AddressArgs, address: string, by: string): Promise<void> {
  try {
    await rememberAddress(deps.store, {
      email: args.email,
      currency: args.currency.name,
      network: args.network.name,
      address,
      at: new Date(deps.now()).toISOString(),
      by,
    });
  } catch (err) {
    deps.logger.warn({ err }, 'could not remember a generated client address');
  }
}
