/**
 * The parts the app is built from, handed to every command and receiver. Tests build the
 * same parts on test ports instead of importing singletons.
 */
import type { ScreeningService } from './screening/service.js';
import type { BatchService } from './batches/index.js';
import type { Alerts } from './alerts/index.js';
import type { AwayService } from './away/service.js';
import type { BalanceBook } from './balances/book.js';
import type { LowBalanceWatch } from './balances/watch.js';
import type { Config } from './config.js';
import type { FreezeService } from './freeze/service.js';
import type { DigestService } from './digest/service.js';
import type { Scheduler } from './jobs/scheduler.js';
import type { Logger } from './log.js';
import type { Outbox } from './outbox/index.js';
import type { PolicyGovernor } from './policy/governance/governor.js';
import type { PolicySource } from './policy/source.js';
import type { Prices } from './prices/types.js';
import type { StepUpService } from './stepup/index.js';
import type { Passkeys } from './passkeys/index.js';
import type { Store } from './store/index.js';
import type { WalletClient } from './wallet/client.js';
import type { WebhookRegistration } from './webhooks/registration.js';
import type { WebhookRotationPart } from './webhooks/rotation.js';
import type { WithdrawalEvent, WithdrawalService } from './withdrawals/index.js';

/** The origin accounts' balances and the low-balance watch (built in app/balances.ts). */
export interface BalancesPart {
  book: BalanceBook;
  watch: LowBalanceWatch;
}

export interface Deps {
  config: Config;
  logger: Logger;
  store: Store;
  wallet: WalletClient;
  /** The policy in force: `current()` at the moment of use, never a copy kept. */
  policy: PolicySource;
  /** The approved policy, the proposed change and its decisions. */
  policyGovernance: PolicyGovernor;
  scheduler: Scheduler;
  outbox: Outbox;
  withdrawals: WithdrawalService;
  /** Batch payouts (src/batches/): absent where the app part is not built (some tests). */
  batches?: BatchService;
  /** Authenticator codes for approving large withdrawals (enrolment, checks, lockout, reset). */
  stepUp: StepUpService;
  /** Who is away and whom they hand their approvals to (`/treasury away`, `/treasury back`). */
  away: AwayService;
  /** Passkeys: enrolment links and credentials, and confirmations bound to one withdrawal (src/passkeys/). */
  passkeys: Passkeys;
  /** The alerts part (/treasury status shows what it has seen). */
  alerts: Alerts;
  /** The origin accounts' balances (/treasury balances, the App Home) and the low-balance watch. */
  balances: BalancesPart;
  /** The price cache (src/prices): values beside amounts, and its state in /treasury status. */
  prices: Prices;
  /** Sanctions screening (src/screening): its list and provider in /treasury status. */
  screening?: Pick<ScreeningService, 'status' | 'listed'>;
  /** The daily digest (/treasury digest, the `digest.daily` job). */
  digests: DigestService;
  /**
   * Subscribes to every withdrawal change (called inside the change's commit: schedule work, do
   * none there). The App Home uses it to stay true after a decision made on any surface.
   */
  onWithdrawalChange?(listener: (event: WithdrawalEvent) => void): void;
  /** A withdrawal card's permalink, undefined until the card is posted (one source for DMs and the Home). */
  cardPermalink(requestId: string): Promise<string | undefined>;
  /** Registers PUBLIC_URL/webhooks/wallet/<secret> with the wallet service. */
  registerWebhook(by: string): Promise<WebhookRegistration>;
  /** `/treasury webhook rotate`: a new secret, the old one accepted for a short overlap (src/webhooks/rotation.ts). */
  webhookRotation: WebhookRotationPart;
  /** Where the wallet service is: the embedded sandbox or a configured base URL. */
  walletDescription: string;
  /** The freeze switch: stops every send until two admins unfreeze. */
  freeze: FreezeService;
  /**
   * The verification URL to paste into the wallet service's dashboard (PUBLIC_URL, or the app's
   * own URL with the embedded sandbox), secret included: only ever shown to an admin, privately.
   */
  verificationUrl(): string | undefined;
  version: string;
  now: () => number;
}
