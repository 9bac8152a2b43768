/**
 * The store part. It tells listeners registered later (the withdrawals part) when the disk
 * takes writes again after refusing them, so nothing has to be built before the store.
 * With DATABASE_URL it is PostgreSQL, and this is where a replica waits for the lead
 * (src/replica/lead.ts): the app is built only once it leads.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { type InboxDrain, waitToLead } from '../replica/lead.js';
import type { StandbyOptions } from '../replica/standby.js';
import { SANDBOX_MERCHANT } from '../sandbox/index.js';
import { openStore, type Store, type StoreOptions } from '../store/index.js';
import { parseSecretsKey } from '../secrets-key.js';
import type { SecretKeys } from '../webhooks/sealed.js';
import type { CleanupStack } from './cleanup.js';

export interface StorePart {
  store: Store;
  /** Called every time the store can write again after refusing writes. */
  onWritable(listener: () => void): void;
  /** With PostgreSQL: throws unless this replica's lead is freshly confirmed (before each wallet POST, each Slack post). */
  lease?: () => void;
  /** With PostgreSQL: drains webhooks a standby took into the inbox, through this app's own webhook ingestion. */
  drainInbox?: (drain: InboxDrain) => void;
}

export async function buildStore(
  o: {
    dir: string;
    logger: Logger;
    onFatal: ((err: Error) => void) | undefined;
    options: Pick<StoreOptions, 'probeIntervalMs' | 'writeGate'> | undefined;
    onCommitDurable?: StoreOptions['onCommitDurable'];
    /** DATABASE_URL and what the standby routes need while another replica leads. */
    database?: Omit<StandbyOptions, 'logger'>;
    /** Stops waiting for the lead (a standby asked to stop). */
    signal?: AbortSignal;
  },
  cleanup: CleanupStack,
): Promise<StorePart> {
  if (o.database) {
    const lead = await waitToLead({
      ...o.database,
      logger: o.logger,
      onFailure: o.onFatal,
      onCommitDurable: o.onCommitDurable,
      signal: o.signal,
    });
    cleanup.push(() => lead.store.close());
    return {
      store: lead.store,
      // The database never refuses writes the way a full disk does: a failed write ends the lead.
      onWritable: () => {},
      lease: () => lead.leader.assertLease(),
      drainInbox: (drain) => cleanup.push(lead.drainInbox(drain)),
    };
  }
  const listeners: Array<() => void> = [];
  const store = await openStore({
    dir: o.dir,
    logger: o.logger.child({ component: 'store' }),
    onFailure: o.onFatal,
    onWritable: () => {
      for (const l of listeners) l();
    },
    onCommitDurable: o.onCommitDurable,
    ...o.options,
  });
  cleanup.push(() => store.close());
  return { store, onWritable: (l) => listeners.push(l) };
}

/** What the PostgreSQL store and the standby routes need from the configuration; undefined: the embedded store. */
export function databaseOptions(
  config: Pick<
    Config,
    | 'databaseUrl'
    | 'port'
    | 'host'
    | 'webhookSecret'
    | 'webhookSecretPrevious'
    | 'webhookSignatureRequired'
    | 'wallet'
    | 'secretsKey'
    | 'secretsKeyPrevious'
  >,
  version: string,
): Omit<StandbyOptions, 'logger'> | undefined {
  if (!config.databaseUrl) return undefined;
  return {
    url: config.databaseUrl,
    port: config.port,
    host: config.host,
    version,
    configuredSecrets: [config.webhookSecret, config.webhookSecretPrevious].filter((s): s is string => !!s),
    signatureRequired: config.webhookSignatureRequired,
    secretsKeys: configuredKeys(config),
    // The key buildWallet will use: the configured one, or the embedded sandbox's.
    secretKey: (config.wallet.baseUrl ? config.wallet.apiKey : undefined) ?? SANDBOX_MERCHANT.apiKey,
  };
}

/** SECRETS_KEY and SECRETS_KEY_PREVIOUS as configured (checked by config); undefined: generated, kept in the store. */
function configuredKeys(config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>): SecretKeys | undefined {
  const key = config.secretsKey ? parseSecretsKey(config.secretsKey) : undefined;
  if (!key) return undefined;
  const previous = config.secretsKeyPrevious ? parseSecretsKey(config.secretsKeyPrevious) : undefined;
  return previous ? { key, previous } : { key };
}
