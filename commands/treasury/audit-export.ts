/**
 * `/treasury audit export`: the whole audit log as a CSV file, in the admin's DM, with a full
 * check of the hash chain (from entry 1, not from the checkpoint). Both read the log page by page.
 */
import { exportAuditCsv, verifyAuditChain } from '../../src/audit/index.js';
import { utcDay } from '../../src/format/time.js';
import { dmChannel } from '../../src/slack/guard.js';
import type { VerbRun } from './verb.js';

export const auditExportVerb: VerbRun = {
  run: async ({ deps, respond, client, userId }) => {
    const check = await verifyAuditChain(deps.store, { from: 'start' });
    const csv = await exportAuditCsv(deps.store);
    const day = utcDay(deps.now());
    await client.files.uploadV2({
      channel_id: await dmChannel(client, userId),
      file: Buffer.from(csv, 'utf8'),
      filename: `audit-${day}.csv`,
      title: `Audit log ${day}`,
      initial_comment: check.ok
        ? `Audit log: ${check.count} entries, hash chain verified.`
        : `:rotating_light: Audit log export: the hash chain does NOT verify at entry #${check.seq} (${check.reason}).`,
    });
    await respond({
      response_type: 'ephemeral',
      text: ':white_check_mark: The audit log was sent to you in a direct message.',
    });
  },
};
