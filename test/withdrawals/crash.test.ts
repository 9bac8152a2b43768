/**
 * Invariant 4: a crash at any point leaves a state from which restart continues correctly.
 * A child process approves and is SIGKILLed at a precise point; the parent (which runs the
 * sandbox, so it outlives the child) then reopens the data directory and runs recover().
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/audit/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createWithdrawalService, type WithdrawalService } from '../../src/withdrawals/index.js';
import { CLIENT, groups, quietLogger, tempDir, testPolicy, usdt, walletFor } from './helpers.js';
import { fixedPolicy } from '../../src/policy/source.js';
import { nodeArgs } from '../helpers/built.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const child = path.join(here, 'fixtures', 'crash-child.ts');

interface Ctx {
  dir: string;
  sandbox: Sandbox;
  store?: Store;
}
let ctx: Ctx | undefined;
afterEach(async () => {
  if (!ctx) return;
  await ctx.store?.close();
  await ctx.sandbox.close();
  await rm(ctx.dir, { recursive: true, force: true });
  ctx = undefined;
});

const service = (c: Ctx, now?: () => number): WithdrawalService =>
  createWithdrawalService({
    store: c.store!,
    wallet: walletFor(c.sandbox.url),
    policy: fixedPolicy(testPolicy()),
    groups,
    logger: quietLogger(),
    ...(now ? { now } : {}),
  });

async function setup(amount: string, preApprovers: string[] = []): Promise<{ c: Ctx; id: string; ref: string }> {
  const c: Ctx = { dir: await tempDir(), sandbox: await createSandbox({ logger: quietLogger(), seed: false }) };
  ctx = c;
  c.sandbox.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
  c.store = await openStore({ dir: c.dir });
  const s = service(c);
  const r = await s.request(usdt(amount), 'U0ALICE');
  if (!r.ok) throw new Error(r.message);
  for (const u of preApprovers) expect((await s.approve(r.request.id, u)).ok).toBe(true);
  await c.store.close();
  c.store = undefined;
  return { c, id: r.request.id, ref: r.request.merchantReference };
}

function runChild(
  c: Ctx,
  env: { REQUEST_ID: string; APPROVER: string; KILL_AT: string },
): Promise<{ signal: NodeJS.Signals | null; code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, nodeArgs(child), {
      cwd: root,
      env: { ...process.env, DATA_DIR: c.dir, SANDBOX_URL: c.sandbox.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (err += String(d)));
    p.on('error', reject);
    p.on('exit', (code, signal) => resolve({ signal, code, out, err }));
  });
}

async function crashAndRestart(
  c: Ctx,
  env: { REQUEST_ID: string; APPROVER: string; KILL_AT: string },
  now?: () => number,
) {
  const res = await runChild(c, env);
  expect(res.signal, `child did not die at ${env.KILL_AT}: ${res.out} ${res.err}`).toBe('SIGKILL');
  expect(res.out).toContain(`KILLED ${env.KILL_AT}`);
  c.store = await openStore({ dir: c.dir });
  const s = service(c, now);
  const recovered = await s.recover();
  return { s, recovered };
}

describe('crash and restart', () => {
  it('killed after a (non-final) approval is durable: the approval survives, the next one sends once', async () => {
    const { c, id, ref } = await setup('5000'); // 2 approvals
    const { s, recovered } = await crashAndRestart(c, {
      REQUEST_ID: id,
      APPROVER: 'U0CAROL',
      KILL_AT: 'afterApprovalDurable',
    });
    expect(recovered.markedUnknown).toEqual([]);
    expect(s.get(id)).toMatchObject({ state: 'pending', approvals: [{ user: 'U0CAROL' }] });
    expect(c.sandbox.stats.withdrawals).toBe(0);
    const a = await s.approve(id, 'U0DAVE');
    expect(a.ok && (await a.execution!).state).toBe('completed');
    expect(c.sandbox.stats.withdrawals).toBe(1);
    expect(c.sandbox.transactions().filter((t) => t.reference === ref)).toHaveLength(1);
    expect(verifyAudit(c.store!).ok).toBe(true);
  });

  it('killed after executing is durable, before the call: unknown, never resent, an admin settles it', async () => {
    const { c, id, ref } = await setup('5000', ['U0CAROL']);
    const { s, recovered } = await crashAndRestart(c, {
      REQUEST_ID: id,
      APPROVER: 'U0DAVE',
      KILL_AT: 'afterExecutingDurable',
    });
    expect(recovered.markedUnknown).toEqual([id]);
    expect(recovered.reconcile.stillUnknown).toEqual([id]);
    expect(s.get(id)?.state).toBe('unknown');
    // A second restart, the reconciliation job: still nothing is sent.
    await s.recover();
    await s.reconcileUnknown();
    expect(c.sandbox.stats.withdrawals).toBe(0);
    expect(c.sandbox.transactions().filter((t) => t.reference === ref)).toHaveLength(0);
    const resolved = await s.resolveUnknown(id, 'U0ERIN', 'not_sent', 'not in the service list after the crash');
    expect(resolved.ok && resolved.request.state).toBe('failed');
    expect(verifyAudit(c.store!).ok).toBe(true);
  });

  it('killed after the last approval is durable, before the send was claimed: sent once after restart, same reference', async () => {
    const { c, id, ref } = await setup('10'); // 1 approval
    const { s, recovered } = await crashAndRestart(c, {
      REQUEST_ID: id,
      APPROVER: 'U0CAROL',
      KILL_AT: 'afterApprovalDurable',
    });
    expect(recovered.markedUnknown).toEqual([]);
    expect(recovered.resumed).toEqual([id]);
    await s.idle();
    expect(s.get(id)).toMatchObject({ state: 'completed', result: { source: 'wallet' } });
    expect(c.sandbox.stats.withdrawals).toBe(1);
    expect(c.sandbox.transactions().filter((t) => t.reference === ref)).toHaveLength(1);
    // A second restart finds it completed and sends nothing more.
    expect((await s.recover()).resumed).toEqual([]);
    await s.idle();
    expect(c.sandbox.stats.withdrawals).toBe(1);
    expect(verifyAudit(c.store!).ok).toBe(true);
  });

  it('killed after the last approval, restarted only after the expiry: not sent, expired', async () => {
    const { c, id } = await setup('10');
    const later = () => Date.now() + 3 * 3_600_000; // the test policy expires requests after 2 h
    const { s, recovered } = await crashAndRestart(
      c,
      { REQUEST_ID: id, APPROVER: 'U0CAROL', KILL_AT: 'afterApprovalDurable' },
      later,
    );
    expect(recovered.resumed).toEqual([]);
    await s.idle();
    expect(s.get(id)?.state).toBe('expired');
    expect(c.sandbox.stats.withdrawals).toBe(0);
    expect(verifyAudit(c.store!).ok).toBe(true);
  });

  it('killed after the wallet answered, before the result was written: reconciled to completed, sent once', async () => {
    const { c, id, ref } = await setup('10');
    const { s, recovered } = await crashAndRestart(c, {
      REQUEST_ID: id,
      APPROVER: 'U0CAROL',
      KILL_AT: 'afterWalletAnswered',
    });
    expect(recovered.markedUnknown).toEqual([id]);
    expect(recovered.reconcile.resolved.map((r) => r.id)).toEqual([id]);
    expect(s.get(id)).toMatchObject({ state: 'completed', result: { source: 'reconcile', amount: '10' } });
    await s.recover();
    expect(c.sandbox.stats.withdrawals).toBe(1);
    expect(c.sandbox.transactions().filter((t) => t.reference === ref)).toHaveLength(1);
    expect(verifyAudit(c.store!).ok).toBe(true);
  });
});
