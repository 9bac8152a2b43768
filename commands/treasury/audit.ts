/** `/treasury audit`: the latest audit entries and whether the hash chain verifies (admins). */
import { recentAudit, verifyAudit } from '../../src/audit/index.js';
import { utcMinute } from '../../src/format/time.js';
import { auditRowText } from '../../src/slack/audit-words.js';
import { context, header, packLines, section } from '../../src/slack/blocks.js';
import type { VerbRun } from './verb.js';

export const auditVerb: VerbRun = {
  run: async ({ deps, respond }) => {
    const check = verifyAudit(deps.store);
    const entries = recentAudit(deps.store, 20);
    // Each row stands alone: who, what (in the card's words), amount, payee, reference, reason.
    const lines = entries.map(
      (e) =>
        `\`#${e.seq}\` ${utcMinute(Date.parse(e.at))} · ${e.actor === 'system' ? 'the app' : `<@${e.actor}>`} · ${auditRowText(e, (id) => deps.withdrawals.get(id))}`,
    );
    await respond({
      response_type: 'ephemeral',
      text: 'Audit log',
      blocks: [
        header('Audit log'),
        section(
          check.ok
            ? `:white_check_mark: Hash chain verified: ${check.count} entries.`
            : `:rotating_light: *The audit log does not verify* at entry #${check.seq}: ${check.reason}`,
        ),
        ...packLines(lines.length ? lines : ['_No entries yet._']),
        context('`/treasury audit export` sends the whole log as CSV.'),
      ],
    });
  },
};
