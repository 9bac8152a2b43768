/**
 * The screening part (src/screening): the sanctions list from SANCTIONS_LIST_URL, or the embedded
 * sandbox's copy when the wallet is the embedded sandbox and no URL is set (so `npm start` and the
 * tests screen against a list they can change), else the bundled snapshot alone; and a
 * Chainalysis-compatible provider from SCREENING_API_URL (or the sandbox's). Its notices go to the
 * admins through the outbox; a withdrawal stopped after its request for a sanctioned destination
 * is told to them too, in the commit that stopped it. Refreshed by the `screening.refresh` job.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Outbox } from '../outbox/index.js';
import type { PolicySource } from '../policy/source.js';
import { SANCTIONS_PREFIX, SANDBOX_SCREENING_KEY } from '../sandbox/screening.js';
import { screeningNoticeSender } from '../screening/notices.js';
import { createProvider } from '../screening/provider.js';
import { createScreening, type ScreeningService } from '../screening/service.js';
import type { ScreeningNotice, WithdrawalScreening } from '../screening/types.js';
import { registerScreeningNoticeRenderer } from '../slack/screening-notice.js';
import { listName } from '../screening/words.js';
import type { Store, Tx } from '../store/index.js';
import type { WithdrawalEvent, WithdrawalRequest } from '../withdrawals/types.js';

export interface ScreeningPart {
  service: ScreeningService;
  /** What the withdrawal service is given (facts, the provider, the admins' notices). */
  withdrawals: WithdrawalScreening;
  tell(tx: Tx, notice: ScreeningNotice): void;
  /** Why an address may not be allowlisted (governed policy): it is sanctioned now; undefined when not. */
  sanctioned(address: string): string | undefined;
  /** The verification callback refused a withdrawal by the rule table: told to the admins when its destination is sanctioned. */
  onVerifyRefused(tx: Tx, r: WithdrawalRequest, rules: string): void;
  /** A withdrawal listener: a request stopped for a sanctioned destination is told to the admins. */
  onWithdrawal(event: WithdrawalEvent, tx: Tx): void;
}

export async function buildScreening(o: {
  config: Config;
  /** The embedded sandbox, when it is the wallet: its list and provider stand in for the real ones. */
  wallet: { sandbox?: { url: string } | undefined };
  store: Store;
  outbox: Pick<Outbox, 'enqueue' | 'registerRenderer'>;
  policy: PolicySource;
  now: () => number;
  logger: Logger;
}): Promise<ScreeningPart> {
  const c = o.config.screening;
  const sandboxUrl = o.wallet.sandbox?.url;
  const source = c.listUrl ?? (sandboxUrl ? `${sandboxUrl}${SANCTIONS_PREFIX}` : undefined);
  // The sandbox's own provider stands in only when the list is the sandbox's too (the local workspace, tests).
  const api =
    c.apiUrl && c.apiKey
      ? { url: c.apiUrl, key: c.apiKey }
      : sandboxUrl && !c.listUrl
        ? { url: sandboxUrl, key: SANDBOX_SCREENING_KEY }
        : undefined;
  const provider = api
    ? createProvider({ url: api.url, apiKey: api.key, now: o.now, timeoutMs: c.timeoutMs })
    : undefined;
  const tell = screeningNoticeSender(o.outbox, o.policy);
  const service = await createScreening({
    source,
    tell,
    provider,
    store: o.store,
    policy: o.policy,
    now: o.now,
    logger: o.logger.child({ component: 'screening' }),
  });
  // A list on this machine or loopback (a file, the embedded sandbox) is read before anything is judged;
  // a remote one by the refresh job, which runs at start (the bundled snapshot, with its true age, until then).
  if (source && !/^https?:\/\/(?!127\.|localhost|\[::1\])/i.test(source))
    await service.refresh().catch(() => undefined);
  registerScreeningNoticeRenderer(o.outbox);
  return {
    service,
    tell,
    withdrawals: { facts: service.facts, ask: service.ask, tell },
    sanctioned(address) {
      const v = service.listed(address);
      if (!v) return undefined;
      return v.by === 'list'
        ? `it is on ${listName(v.list)}`
        : 'the sanctions screening service identifies it as sanctioned';
    },
    onVerifyRefused(tx, r, rules) {
      if (!service.listed(r.destination)) return;
      const list = service.facts().list;
      tell(tx, {
        kind: 'stopped',
        at: new Date(o.now()).toISOString(),
        address: r.destination,
        amount: r.amount,
        currency: r.currency,
        network: r.network,
        requester: r.requester,
        reason: `the wallet service asked to confirm it, and it was refused: ${rules}`,
        list: { date: list.date, sha256: list.sha256 },
      });
    },
    onWithdrawal(event, tx) {
      const r = event.request;
      if (event.type !== 'rejected' || !r.sanctioned) return;
      tell(tx, {
        kind: 'stopped',
        at: r.sanctioned.at,
        address: r.destination,
        amount: r.amount,
        currency: r.currency,
        network: r.network,
        requester: r.requester,
        reason: r.sanctioned.reason,
        ...(r.sanctioned.list ? { list: r.sanctioned.list } : {}),
      });
    },
  };
}
