/** How a deposit address is shown: the address, whose it is, and whether it may be shared yet. */
import { depositWarning, networkWithStandard } from '../../src/format/network.js';
import { context, fields, header, section } from '../../src/slack/blocks.js';
import type { WalletAddress } from '../../src/wallet/schemas.js';
import type { AddressArgs } from './parse.js';
import { outside } from '../../src/format/outside.js';

const STATUS_TEXT: Record<WalletAddress['status'], string> = {
  generated: ':white_check_mark: Generated: ready to receive funds',
  pending:
    ':hourglass_flowing_sand: Pending: the address is still being generated. Do not share it until `/address` shows it as generated.',
  failed:
    ':x: Generation failed: do not use this address. Try again later, or contact the wallet service if it keeps failing.',
  unknown: ':grey_question: Unknown generation status: check with the wallet service before sharing it.',
};

export function renderAddress(args: AddressArgs, a: WalletAddress, qrNote: string) {
  const warning = depositWarning(args.currency.name, args.network.name);
  const blocks = [
    header(`Deposit address: ${args.currency.name} on ${args.network.name}`),
    section(a.address ? `\`\`\`${outside(a.address).replace(/`/g, 'ˋ')}\`\`\`` : '_No address yet._'),
    section(`:warning: *${warning}*`),
    // The service's client id is an internal key: the e-mail is how people know the client.
    fields([
      ['Client', outside(args.email)],
      ['Currency', args.currency.name],
      ['Network', networkWithStandard(args.network.name)],
    ]),
    section(`*Status*\n${STATUS_TEXT[a.status]}${a.message ? `\n_${outside(a.message, 300)}_` : ''}`),
    context(`The same client, currency and network always give this address. ${qrNote}`),
  ];
  return {
    text: `Deposit address for ${outside(args.email)} (${args.currency.name} on ${args.network.name}): ${outside(a.address)}. ${warning}`,
    blocks,
  };
}
