/**
 * `/treasury audit`: the latest audit entries and whether the hash chain verifies (admins). The
 * check walks the entries written since the last verified checkpoint (src/audit/verify.ts);
 * `/treasury audit export` walks the whole chain.
 */
import { type ChainCheck, checkAuditSinceCheckpoint, readRecentAudit } from '../../src/audit/index.js';
import type { WithdrawalRequest } from '../../src/withdrawals/index.js';
import { WITHDRAWALS } from '../../src/withdrawals/index.js';
import { utcMinute } from '../../src/format/time.js';
import { auditRowText } from '../../src/slack/audit-words.js';
import { context, header, packLines, section } from '../../src/slack/blocks.js';
import type { VerbRun } from './verb.js';

/**
 * What the check covered, in plain words: from a checkpoint it checked only the entries written
 * since that check (an older entry edited since is for the full check), so it does not say "all".
 */
function verifiedText(check: Extract<ChainCheck, { ok: true }>): string {
  if (check.since === undefined) return `:white_check_mark: Hash chain verified: all ${check.count} entries.`;
  const n = check.walked === 1 ? '1 new entry' : `${check.walked} new entries`;
  return `:white_check_mark: ${n} since ${utcMinute(Date.parse(check.since))} verified (a full check: \`/treasury audit export\`).`;
}

export const auditVerb: VerbRun = {
  run: async ({ deps, respond }) => {
    const check = await checkAuditSinceCheckpoint(deps.store, deps.now);
    const entries = await readRecentAudit(deps.store, 20);
    // The requests the rows name, closed ones too (from history when they have left memory).
    const requests = new Map<string, WithdrawalRequest>();
    for (const id of new Set(entries.map((e) => e.subject))) {
      const r = deps.withdrawals.get(id) ?? (await deps.store.history.get(WITHDRAWALS, id));
      if (r) requests.set(id, r);
    }
    // Each row stands alone: who, what (in the card's words), amount, payee, reference, reason.
    const lines = entries.map(
      (e) =>
        `\`#${e.seq}\` ${utcMinute(Date.parse(e.at))} · ${e.actor === 'system' ? 'the app' : `<@${e.actor}>`} · ${auditRowText(e, (id) => requests.get(id))}`,
    );
    await respond({
      response_type: 'ephemeral',
      text: 'Audit log',
      blocks: [
        header('Audit log'),
        section(
          check.ok
            ? verifiedText(check)
            : `:rotating_light: *The audit log does not verify* at entry #${check.seq}: ${check.reason}`,
        ),
        ...packLines(lines.length ? lines : ['_No entries yet._']),
        context('`/treasury audit export` sends the whole log as CSV.'),
      ],
    });
  },
};
