/**
 * A 500-row batch payout, validated, approved once, and sent with three SIGKILLs at random points
 * during the sends: after each restart the batch resumes, rows found executing become unknown and
 * are settled by the wallet service's status for their reference, and no row is ever sent twice.
 * The parent runs the sandbox (it outlives the children) and checks the sandbox's own list.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/index.js';
import { countedBatchRows, createBatchService } from '../../src/batches/index.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createWithdrawalService, WITHDRAWALS } from '../../src/withdrawals/index.js';
import { CLIENT, groups, quietLogger, tempDir, testPolicy, walletFor } from '../withdrawals/helpers.js';
import { nodeArgs } from '../helpers/built.js';
import { payoutFile } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const child = path.join(here, 'fixtures', 'batch-child.ts');

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

function runChild(dir: string, sandbox: Sandbox, env: Record<string, string>) {
  return new Promise<{ signal: NodeJS.Signals | null; out: string; err: string }>((resolve, reject) => {
    const p = spawn(process.execPath, nodeArgs(child), {
      cwd: root,
      env: { ...process.env, DATA_DIR: dir, SANDBOX_URL: sandbox.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (err += String(d)));
    p.on('error', reject);
    p.on('exit', (_code, signal) => resolve({ signal, out, err }));
  });
}

const services = (store: Store, sandbox: Sandbox, now: () => number) => {
  const policy = fixedPolicy(testPolicy({ dailyLimit: { USDT: '1000000' } }));
  const withdrawals = createWithdrawalService({
    store,
    wallet: walletFor(sandbox.url),
    policy,
    groups,
    logger: quietLogger(),
    counted: countedBatchRows,
    now,
  });
  const batches = createBatchService({
    store,
    withdrawals,
    policy,
    groups,
    logger: quietLogger(),
    now,
    pace: { concurrency: 4, perSecond: 400 },
  });
  return { withdrawals, batches };
};

it('500 rows, three SIGKILLs during the sends: every row settled, none sent twice', { timeout: 240_000 }, async () => {
  const dir = await tempDir();
  const sandbox = await createSandbox({ logger: quietLogger(), seed: false });
  sandbox.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  let store: Store | undefined = await openStore({ dir });
  cleanup = async () => {
    await store?.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  };
  const first = services(store, sandbox, Date.now);
  const out = await first.batches.submit({ text: payoutFile(500, '1'), fileName: 'month-end.csv' }, 'U0ALICE');
  if (!out.ok) throw new Error(JSON.stringify(out));
  const id = out.batch.id;
  first.batches.close();
  await store.close();
  store = undefined;

  // Three kills at random points of the sends: the first child approves, the next ones resume.
  const cuts = [1, 2, 3].map(() => 20 + Math.floor(Math.random() * 120));
  for (const [i, cut] of cuts.entries()) {
    const res = await runChild(dir, sandbox, {
      BATCH_ID: id,
      KILL_AFTER: String(cut),
      ...(i === 0 ? { APPROVER: 'U0CAROL' } : {}),
      // The last kill falls between a claim and its POST (the row durably executing, nothing sent).
      ...(i === 2 ? { KILL_AT: 'claim' } : {}),
    });
    expect(res.signal, `child ${i} was not killed: ${res.out} ${res.err}`).toBe('SIGKILL');
    expect(res.out).toContain(`KILLED after ${cut}`);
  }
  const postsAtKills = sandbox.stats.withdrawals;
  // The claim kill comes with up to 3 other calls still unanswered (concurrency 4).
  expect(postsAtKills).toBeGreaterThanOrEqual(cuts.reduce((a, b) => a + b, 0) - 4);
  expect(postsAtKills).toBeLessThan(500);

  // The last restart, past the not-found grace: the rest is sent and every unknown row settled by status.
  store = await openStore({ dir });
  const later = Date.now() + 11 * 60_000;
  const last = services(store, sandbox, () => later);
  await last.withdrawals.recover();
  last.batches.resume();
  await last.batches.idle();
  await last.withdrawals.reconcileUnknown();

  const rows = store.find(WITHDRAWALS, (r) => r.batch?.id === id);
  expect(rows).toHaveLength(500);
  const listed = new Map<string, number>();
  for (const t of sandbox.transactions())
    if (t.transactionType === 'Withdrawal') listed.set(t.reference, (listed.get(t.reference) ?? 0) + 1);
  // No reference twice at the service. The service refuses a repeated reference, so its list alone
  // cannot show a second send: every POST it received is counted, by the reference it carried.
  expect([...listed.values()].every((n) => n === 1)).toBe(true);
  const posted = new Map<string, number>();
  for (const q of sandbox.stats.requests)
    if (q.method === 'POST' && q.path.startsWith('/api/merchantClientWithdrawal')) {
      const ref = String((JSON.parse(q.body) as { merchantReference?: unknown }).merchantReference);
      posted.set(ref, (posted.get(ref) ?? 0) + 1);
    }
  expect([...posted.entries()].filter(([, n]) => n > 1)).toEqual([]);
  expect(sandbox.stats.withdrawals).toBe([...posted.values()].reduce((a, b) => a + b, 0));
  for (const r of rows) {
    // Sent: the service has it once. Not sent: a call a kill cut before it left (never executed), never resent.
    if (r.state === 'completed') expect(listed.get(r.merchantReference)).toBe(1);
    else {
      expect(r).toMatchObject({ state: 'failed', error: { kind: 'never_executed' } });
      expect(listed.has(r.merchantReference)).toBe(false);
    }
  }
  const completed = rows.filter((r) => r.state === 'completed').length;
  // At most the rows in flight at each kill (4) were cut before they reached the service.
  expect(completed).toBeGreaterThanOrEqual(500 - 3 * 4);
  expect(completed).toBe(listed.size);
  // Every POST is a row the service completed or failed: none for a row that was never sent.
  const failedByService = rows.filter((r) => r.state === 'failed' && r.error?.kind !== 'never_executed').length;
  expect(sandbox.stats.withdrawals).toBe(completed + failedByService);
  for (const r of rows) if (r.state !== 'completed') expect(posted.has(r.merchantReference)).toBe(false);
  expect(last.batches.get(id)?.state).toBe('done');
  expect(verifyAudit(store).ok).toBe(true);
  last.batches.close();
});
