/**
 * The /treasury verbs: one file each, one entry each here. Who may use a verb, and its help line,
 * are in ../table.ts (`TREASURY_VERBS`); this table is typed by its keys, so a verb named there
 * without a file here, or a file here without a name there, does not compile.
 */
import type { VerbName } from '../table.js';
import { auditVerb } from './audit.js';
import { awayVerb } from './away.js';
import { backVerb } from './back.js';
import { auditExportVerb } from './audit-export.js';
import { balancesVerb } from './balances.js';
import { digestVerb } from './digest.js';
import { freezeVerb, unfreezeVerb } from './freeze.js';
import { helpVerb } from './help.js';
import { pendingVerb } from './pending.js';
import { policyVerb } from './policy.js';
import { statusVerb } from './status.js';
import { passkeyListVerb, passkeyRemoveVerb, passkeyRevokeVerb, passkeyVerb } from './passkey.js';
import { stepUpResetVerb } from './step-up-reset.js';
import type { VerbRun } from './verb.js';
import { verificationUrlVerb } from './verification.js';
import { webhookRegisterVerb } from './webhook-register.js';
import { webhookRotateVerb } from './webhook-rotate.js';
import { withdrawalVerb } from './withdrawal.js';

export const VERB_RUNS: Record<VerbName, VerbRun> = {
  help: helpVerb,
  status: statusVerb,
  policy: policyVerb,
  audit: auditVerb,
  'audit export': auditExportVerb,
  digest: { run: digestVerb },
  pending: pendingVerb,
  balances: balancesVerb,
  withdrawal: withdrawalVerb,
  'webhook register': webhookRegisterVerb,
  'webhook rotate': webhookRotateVerb,
  'stepup reset': stepUpResetVerb,
  passkey: passkeyVerb,
  'passkey list': passkeyListVerb,
  'passkey remove': passkeyRemoveVerb,
  'passkey revoke': passkeyRevokeVerb,
  freeze: freezeVerb,
  unfreeze: unfreezeVerb,
  away: awayVerb,
  back: backVerb,
  'verification-url': verificationUrlVerb,
};
