/**
 * The passkey part: enrolment and confirmation (src/passkeys/), their notices through the
 * outbox, and the pages' routes. The base URL is PUBLIC_URL, or http://localhost:<port> in the
 * local workspace (a secure context for WebAuthn, RP ID `localhost`), known once the server listens.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import {
  createPasskeyConfirmation,
  createPasskeyEnrolment,
  linkUrl,
  type ApprovalPath,
  type BatchApprovalPath,
  type Passkeys,
} from '../passkeys/index.js';
import type { PolicySource } from '../policy/source.js';
import { passkeyNotices } from '../slack/passkey-notices.js';
import type { Store } from '../store/index.js';
import type { Config } from '../config.js';
import type { Route } from '../http/server.js';
import { passkeyRoutes } from '../passkeys/web/routes.js';
import type { SecretKeys } from '../webhooks/sealed.js';
import type { WithdrawalService } from '../withdrawals/index.js';

export interface PasskeyPart extends Passkeys {
  /** The pages' routes, naming people through Slack's users.info (once the Bolt app exists). */
  routes(client: WebClient | undefined): Route[];
}

export function buildPasskeys(o: {
  store: Store;
  keys: SecretKeys;
  outbox: Outbox;
  policy: PolicySource;
  logger: Logger;
  now: () => number;
  config: Pick<Config, 'publicUrl'>;
  /** This server's own address, known once it listens. */
  address: { url: string };
  withdrawals: { service: ApprovalPath & Pick<WithdrawalService, 'valueForRules'>; batches?: BatchApprovalPath };
}): PasskeyPart {
  const base = () => passkeyBase(o.config.publicUrl, o.address.url ? Number(new URL(o.address.url).port) : undefined);
  const notify = passkeyNotices({
    outbox: o.outbox,
    store: o.store,
    policy: o.policy,
    linkUrl: (id) => linkUrl({ store: o.store, key: o.keys.key, base }, id),
  });
  const logger = o.logger.child({ component: 'passkeys' });
  const part = { store: o.store, key: o.keys.key, policy: o.policy, now: o.now, logger, base, notify };
  const enrolment = createPasskeyEnrolment(part);
  const confirmation = createPasskeyConfirmation({
    ...part,
    withdrawals: o.withdrawals.service,
    batches: o.withdrawals.batches,
  });
  return {
    enrolment,
    confirmation,
    routes: (client) =>
      passkeyRoutes({
        enrolment,
        confirmation,
        valueForRules: (r) => o.withdrawals.service.valueForRules(r),
        nameOf: personName(client, logger),
        logger,
      }),
  };
}

/** The public base: PUBLIC_URL, else this server on `localhost` (not 127.0.0.1: the RP ID must be a name). */
export function passkeyBase(publicUrl: string | undefined, port: number | undefined): string {
  if (publicUrl) return publicUrl;
  if (!port) throw new Error('the passkey pages have no address yet: the server is not listening');
  return `http://localhost:${port}`;
}

/** A person's name for the pages (users.info, cached 5 minutes); their id when Slack cannot say. */
export function personName(client: WebClient | undefined, logger: Logger): (user: string) => Promise<string> {
  const cache = new Map<string, { name: string; at: number }>();
  return async (user) => {
    const hit = cache.get(user);
    if (hit && Date.now() - hit.at < 5 * 60_000) return hit.name;
    let name = user;
    try {
      const got = await client?.users.info({ user });
      const u = got?.user;
      name = u?.profile?.display_name || u?.real_name || u?.name || user;
    } catch (err) {
      logger.debug({ err, user }, 'a name for the passkey page could not be read');
    }
    if (cache.size > 1000) cache.clear();
    cache.set(user, { name, at: Date.now() });
    return name;
  };
}
