/**
 * A client the app has seen, as it comes to be in use: its address generated through the app
 * (what `/address` does), so requests from it are not flagged as from a new client
 * (src/clients/known.ts). Tests about new clients leave this out.
 */
import { rememberAddress } from '../../src/clients/known.js';
import type { Store } from '../../src/store/index.js';
import type { WalletClient } from '../../src/wallet/client.js';
import { currency, network } from '../../src/wallet/enums.js';

export async function clientOnRecord(
  o: { store: Store; wallet: Pick<WalletClient, 'generateAddress'> },
  email: string,
  pairs: ReadonlyArray<readonly [string, string]> = [['USDT', 'BSC']],
): Promise<void> {
  for (const [c, n] of pairs) {
    const a = await o.wallet.generateAddress({ clientEmail: email, currency: currency(c)!, network: network(n)! });
    await rememberAddress(o.store, {
      email,
      currency: c,
      network: n,
      address: a.address,
      at: new Date().toISOString(),
      by: 'U0TEST',
    });
  }
}
