/**
 * The rows file of a batch's thread survives a restart: owed in the commit of the request, uploaded
 * by the batches job of the next process once the card is posted, once (an attempt whose answer was
 * lost is looked for in the thread first). Real Bolt app, the fake Slack shared by both processes,
 * one data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_FILES } from '../../src/slack/batch/thread-files.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { CHANNELS, FINANCE_GROUP, startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { until } from '../helpers/wait.js';

const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const FILE = [
  'address,amount,currency,network,client_email,reference',
  ...Array.from({ length: 3 }, (_, i) => `${DEST},10,USDT,BSC,${CLIENT},INV-${i + 1}`),
].join('\n');

let apps: TestApp[] = [];
let fake: FakeSlack | undefined;
let dir: string | undefined;
afterEach(async () => {
  for (const a of apps) await a.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  apps = [];
  fake = dir = undefined;
});

describe('the files of a batch payout’s thread', () => {
  it('a rows file not uploaded before a restart is uploaded by the next process’s job, once', async () => {
    let uploads = false;
    fake = await startFakeSlack({
      usergroups: { [FINANCE_GROUP]: [USERS.groupMember] },
      // Slack refuses every upload of the first process: its file is still owed when it stops.
      gate: (method) => (!uploads && method === 'files.getUploadURLExternal' ? { error: 'fatal_error' } : undefined),
    });
    dir = mkdtempSync(join(tmpdir(), 'batch-files-'));
    const first = await startTestApp({ fake, dataDir: dir });
    apps.push(first);
    const out = await first.app.deps.batches!.submit({ text: FILE, fileName: 'payouts.csv' }, USERS.alice);
    if (!out.ok) throw new Error(JSON.stringify(out));
    const card = await until('the batch card', () =>
      fake!.channel(CHANNELS.approvals).find((m) => !m.thread_ts && visibleText(m).includes('Batch payout')),
    );
    await until('an upload tried', () => fake!.calls('files.getUploadURLExternal').length > 0);
    await first.stop();
    apps = [];
    expect(fake.files()).toEqual([]);

    uploads = true;
    const second = await startTestApp({ fake, dataDir: dir });
    apps.push(second);
    const rowsIn = () => fake!.files().filter((f) => f.thread_ts === card.ts && f.name.endsWith('-rows.csv'));
    await second.app.deps.scheduler.runNow('batches.expire-and-resume');
    await until('the rows file', () => rowsIn().length > 0);
    const key = `${out.batch.id}:rows`;
    expect(second.app.deps.store.get(BATCH_FILES, key)).toMatchObject({ state: 'uploaded' });
    // An attempt whose answer was lost (marked uploading, the file in the thread): found there, not sent again.
    await second.app.deps.store.commit((tx) =>
      tx.put(BATCH_FILES, key, { ...tx.get(BATCH_FILES, key)!, state: 'uploading' }),
    );
    await second.app.deps.scheduler.runNow('batches.expire-and-resume');
    await second.app.deps.scheduler.runNow('batches.expire-and-resume');
    expect(second.app.deps.store.get(BATCH_FILES, key)).toMatchObject({ state: 'uploaded' });
    expect(rowsIn()).toHaveLength(1);
  });
});
