/**
 * The wallet part: the client of the configured wallet service, or of the embedded sandbox
 * when no WALLET_BASE_URL is set (then explorer links point at test networks).
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createSandbox, SANDBOX_MERCHANT, type Sandbox, type SandboxOptions } from '../sandbox/index.js';
import { secrets } from '../secrets.js';
import { createWalletClient, type WalletClient } from '../wallet/client.js';
import type { WalletClientOptions } from '../wallet/client/types.js';
import type { ExplorerNet } from '../wallet/explorers.js';
import type { CleanupStack } from './cleanup.js';

export interface WalletPart {
  client: WalletClient;
  sandbox: Sandbox | undefined;
  /** Where the wallet service is: the embedded sandbox or a configured base URL. */
  description: string;
  explorerNet: ExplorerNet;
  /** The merchant's secret key (WALLET_API_KEY or the sandbox's): the verification callback's checksum key. */
  secretKey: string;
}

export async function buildWallet(
  o: {
    config: Config;
    logger: Logger;
    sandbox: Partial<SandboxOptions> | undefined;
    onCall?: WalletClientOptions['onCall'];
    /** With PostgreSQL: the lease check before each POST (src/store/pg/leader.ts). */
    beforeWrite?: WalletClientOptions['beforeWrite'];
  },
  cleanup: CleanupStack,
): Promise<WalletPart> {
  let wallet = o.config.wallet;
  let sandbox: Sandbox | undefined;
  if (!wallet.baseUrl) {
    const started = await createSandbox({
      port: o.config.sandboxPort,
      logger: o.logger.child({ component: 'sandbox' }),
      timestampUnit: wallet.timestampUnit,
      ...o.sandbox,
    });
    sandbox = started;
    cleanup.push(() => started.close());
    wallet = { ...wallet, baseUrl: started.url, ...SANDBOX_MERCHANT };
    secrets.add(SANDBOX_MERCHANT.apiKey, SANDBOX_MERCHANT.password);
  }
  const client = createWalletClient({
    baseUrl: wallet.baseUrl!,
    apiKey: wallet.apiKey!,
    publicKey: wallet.publicKey!,
    email: wallet.email!,
    password: wallet.password!,
    v2AuthScheme: wallet.v2AuthScheme,
    refreshMethod: wallet.refreshMethod,
    timestampUnit: wallet.timestampUnit,
    timeoutMs: wallet.timeoutMs,
    // WALLET_PAGE_SIZE: the page size every multi-page read asks for (src/wallet/pager.ts).
    pageSize: wallet.pageSize,
    logger: o.logger.child({ component: 'wallet' }),
    // Commands rarely wait for a login: the token is refreshed in the background before it expires.
    refreshAhead: true,
    onCall: o.onCall,
    beforeWrite: o.beforeWrite,
  });
  cleanup.push(async () => client.close?.());
  return {
    client,
    sandbox,
    description: sandbox ? `embedded sandbox (${sandbox.url})` : wallet.baseUrl!,
    explorerNet: sandbox ? 'testnet' : 'mainnet',
    secretKey: wallet.apiKey!,
  };
}
