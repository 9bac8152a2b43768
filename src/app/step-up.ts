/**
 * SECRETS_KEY (configured, or generated in local mode), resolved once for what it seals (the
 * step-up seeds, the generated webhook secrets), and the step-up part: the service, its notices.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import { secrets } from '../secrets.js';
import { stepUpNotices } from '../slack/step-up-notices.js';
import { createStepUpService, previousSecretsKey, resolveSecretsKey, type StepUpService } from '../stepup/index.js';
import type { Store } from '../store/index.js';
import type { SecretKeys } from '../webhooks/sealed.js';

export async function resolveKeys(config: Config, store: Store): Promise<SecretKeys> {
  const key = await resolveSecretsKey(config, store);
  // A generated key is a secret too: scrubbed from logs like the configured one.
  secrets.add(key.toString('base64'), key.toString('hex'));
  const previous = previousSecretsKey(config);
  return previous ? { key, previous } : { key };
}

export async function buildStepUp(o: {
  keys: SecretKeys;
  store: Store;
  outbox: Outbox;
  policy: PolicySource;
  logger: Logger;
  now: () => number;
}): Promise<StepUpService> {
  const service = createStepUpService({
    store: o.store,
    key: o.keys.key,
    ...(o.keys.previous ? { previousKey: o.keys.previous } : {}),
    now: o.now,
    logger: o.logger.child({ component: 'stepup' }),
    notify: stepUpNotices({ outbox: o.outbox, store: o.store, policy: o.policy }),
    discardQr: (tx, fileId) => o.outbox.enqueue(tx, { op: 'delete_file', renderer: 'none', ref: fileId }),
  });
  // A rotation: what the previous key sealed is sealed again under the new one, once.
  const rekeyed = await service.rekey();
  if (rekeyed) o.logger.info({ people: rekeyed }, 'authenticator secrets re-encrypted under the new SECRETS_KEY');
  // A changed SECRETS_KEY is not fatal (everything else works): those people are told when they
  // approve, and an admin resets them. Said once here, by count, never with any secret.
  const unreadable = service.unreadable();
  if (unreadable.length)
    o.logger.error(
      { people: unreadable.length },
      'SECRETS_KEY does not open the stored authenticator secrets (the key changed?): those approvers cannot approve large withdrawals until an admin resets them and they set up codes again',
    );
  return service;
}
