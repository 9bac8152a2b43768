/**
 * The types of the rule table (rule-table.ts), in a leaf so that the rules kept in modules of
 * their own (screening-rules.ts) can name them without importing the table back.
 */
import type { Policy } from '../policy/schema.js';
import type { PriceSnapshot, Valuation } from '../prices/types.js';
import type { ScreeningFacts, ScreeningInfo } from '../screening/types.js';
import type { PaidSummary } from './paid-summary.js';
import type { AllowlistApprovals } from './rules.js';
import type { TierChoice } from './value-rules.js';
import type { AllowlistInfo, Approval, LimitUse, MissingApprovals, WithdrawalRequest } from './types.js';

/** Where a withdrawal is judged: every rule runs at every step it names. */
export type Step = 'request' | 'approve' | 'send' | 'verify';

export interface RuleFacts {
  step: Step;
  now: number;
  policy: Policy;
  /** The request's value now, at the policy price (unknown: the strictest case). */
  valuation: Valuation;
  /** The price cache now: earlier requests count at their policy value now, not as recorded. */
  prices: PriceSnapshot | undefined;
  /** Every stored request (this one is skipped by id), read only by the rules that need them. */
  requests: () => readonly WithdrawalRequest[];
  /** What the completed payments no longer in memory tell (paid-summary.ts); absent: nothing known paid (the strict reading). */
  paid?: PaidSummary | undefined;
  allowlistApprovals?: AllowlistApprovals | undefined;
  /** The freeze in force, read in the same commit. */
  frozen?: { by: string; reason: string } | undefined;
  /** The sanctions list and the provider's cached answers (src/screening); absent: the app screens nothing. */
  screening?: ScreeningFacts | undefined;
}

export type Verdict =
  | { kind: 'pass' }
  | { kind: 'refuse'; message: string }
  | { kind: 'hold'; message: string; until: 'release' | 'unfreeze' }
  | {
      kind: 'count';
      tier?: TierChoice;
      /** Which of the given approvals still count under this rule. */
      keep?: (a: Approval) => boolean;
      because?: MissingApprovals['because'];
      allowlist?: AllowlistInfo;
      /** Approvals asked for beyond the tier's (a new or look-alike destination), added once every rule has counted. */
      extraApprovals?: number;
      /** The rolling limits that apply, as used / limit, for the card. */
      limits?: LimitUse[];
      /** What the card and the audit log keep of the screening (merged across the screening rules). */
      screening?: Partial<ScreeningInfo>;
    };

export interface Rule {
  /** The steps it runs at. */
  steps: readonly Step[];
  judge(r: WithdrawalRequest, f: RuleFacts): Verdict;
}
