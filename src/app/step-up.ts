/** The step-up part: SECRETS_KEY (configured, or generated in local mode), the service, its notices. */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { Policy } from '../policy/schema.js';
import { stepUpNotices } from '../slack/step-up-notices.js';
import { createStepUpService, resolveSecretsKey, type StepUpService } from '../stepup/index.js';
import type { Store } from '../store/index.js';

export async function buildStepUp(o: {
  config: Config;
  store: Store;
  outbox: Outbox;
  policy: () => Policy;
  logger: Logger;
  now: () => number;
}): Promise<StepUpService> {
  const key = await resolveSecretsKey(o.config, o.store);
  const service = createStepUpService({
    store: o.store,
    key,
    now: o.now,
    logger: o.logger.child({ component: 'stepup' }),
    notify: stepUpNotices({ outbox: o.outbox, store: o.store, policy: o.policy }),
  });
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
