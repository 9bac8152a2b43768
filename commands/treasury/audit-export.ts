/**
 * `/treasury audit export`: the whole audit log as a CSV file, in the admin's DM, with a full
 * check of the hash chain (from entry 1, not from the checkpoint) made in the same walk. The CSV
 * is streamed page by page to a temporary file (a log of millions of entries is more than one
 * string may hold), which the upload reads, and removed after.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exportAuditCsv } from '../../src/audit/index.js';
import { utcDay } from '../../src/format/time.js';
import { dmChannel } from '../../src/slack/guard.js';
import type { VerbRun } from './verb.js';

export const auditExportVerb: VerbRun = {
  run: async ({ deps, respond, client, userId }) => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'audit-export-'));
    try {
      const file = path.join(dir, 'audit.csv');
      const check = await exportAuditCsv(deps.store, fs.createWriteStream(file));
      const day = utcDay(deps.now());
      await client.files.uploadV2({
        channel_id: await dmChannel(client, userId),
        file,
        filename: `audit-${day}.csv`,
        title: `Audit log ${day}`,
        initial_comment: check.ok
          ? `Audit log: ${check.count} entries, hash chain verified.`
          : `:rotating_light: Audit log export: the hash chain does NOT verify at entry #${check.seq} (${check.reason}).`,
      });
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
    await respond({
      response_type: 'ephemeral',
      text: ':white_check_mark: The audit log was sent to you in a direct message.',
    });
  },
};
