/**
 * The whole app on a disk that refuses writes: the process stays up and answers; what
 * needs a write is refused in plain words ("the disk is full. Nothing was changed."),
 * webhooks get 503 so the wallet service retries, /readyz says 503 and why, help, /tx and
 * status keep working, and once there is room everything resumes with no restart and
 * nothing acknowledged lost. Against a real full tmpfs as DATA_DIR when this machine allows
 * mounting one, and through the store's write seam always.
 */
import { ALERT_COLLECTIONS } from '../../src/alerts/types.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositSample } from '../alerts/setup.js';
import { startTestApp, USERS, visibleText, type TestApp } from '../helpers/treasury-app.js';
import { limitViolations } from '../slack/limits-check.js';

const SECRET = 'wh_disk_full_secret_0123456789';
const CLIENT = 'payouts@client.example';
const DEST = '0x2222222222222222222222222222222222222222';
const FULL = 'The app cannot save right now: the disk is full. Nothing was changed.';

interface Disk {
  /** Options for startTestApp. */
  setup(): Promise<Parameters<typeof startTestApp>[0]>;
  fill(): Promise<void>;
  free(): Promise<void>;
  teardown(): Promise<void>;
}

function seamDisk(): Disk {
  let full = false;
  return {
    setup: async () => ({
      store: {
        probeIntervalMs: 25,
        writeGate: (stage) =>
          full && stage !== 'cut' && stage !== 'dirsync'
            ? Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
            : undefined,
      },
    }),
    fill: async () => {
      full = true;
    },
    free: async () => {
      full = false;
    },
    teardown: async () => undefined,
  };
}

function tmpfsDisk(): Disk & { available(): Promise<boolean> } {
  let mount: string | undefined;
  const filler = () => path.join(mount!, 'filler');
  return {
    async available() {
      const dir = await fs.mkdtemp('/tmp/app-tmpfs-');
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'pipe' });
        mount = dir;
        return true;
      } catch {
        await fs.rm(dir, { recursive: true, force: true });
        return false;
      }
    },
    setup: async () => ({ dataDir: path.join(mount!, 'data'), store: { probeIntervalMs: 25 } }),
    async fill() {
      const fh = await fs.open(filler(), 'w');
      try {
        for (const size of [256 * 1024, 4096, 64]) {
          try {
            for (;;) await fh.write(Buffer.alloc(size, 1));
          } catch {
            // full at this granularity
          }
        }
      } finally {
        await fh.close();
      }
    },
    free: () => fs.rm(filler(), { force: true }),
    async teardown() {
      if (!mount) return;
      execFileSync('umount', [mount], { stdio: 'pipe' });
      await fs.rm(mount, { recursive: true, force: true });
    },
  };
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function scenario(name: string, makeDisk: () => Disk & { available?: () => Promise<boolean> }) {
  describe(name, () => {
    let t: TestApp | undefined;
    let disk: ReturnType<typeof makeDisk>;
    let skip: string | undefined;
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown) => unhandled.push(r);

    beforeAll(async () => {
      disk = makeDisk();
      if (disk.available && !(await disk.available())) {
        skip = 'cannot mount a tmpfs on this machine; the seam scenario covers it';
        return;
      }
      process.on('unhandledRejection', onUnhandled);
      t = await startTestApp({
        ...(await disk.setup()),
        env: { WEBHOOK_SECRET: SECRET },
        sandbox: { seed: true },
      });
      t.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
    });
    afterAll(async () => {
      await t?.stop();
      await disk?.teardown();
      process.off('unhandledRejection', onUnhandled);
    });

    const webhook = (hash: string) =>
      fetch(`${t!.app.url}/webhooks/wallet/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: depositSample({ hash }),
      });
    const reply = async (command: string, text: string, user: string = USERS.viewer) => {
      const { res, responseUrl } = await t!.command(command, text, user);
      expect(res.status).toBe(200);
      return visibleText((await t!.replies(responseUrl, 1, 15_000))[0]!);
    };

    it('refuses writes in plain words, keeps reads, and resumes by itself', async (ctx) => {
      if (skip) return ctx.skip(skip);
      const a = t!;
      const before = await webhook(`0x${'a'.repeat(64)}`);
      expect(before.status).toBe(200);

      await disk.fill();
      // The first refused write is what tells the store; a webhook is one. A small append can
      // still fit in the slack of the journal's last allocated page, so a few may be taken
      // (and acknowledged: they must survive) before one is refused.
      const taken: string[] = [];
      let refused: Response | undefined;
      for (let i = 0; i < 64 && !refused; i++) {
        const hash = `0x${i.toString(16).padStart(2, '0')}${'b'.repeat(62)}`;
        const r = await webhook(hash);
        if (r.status === 200) taken.push(hash);
        else refused = r;
      }
      expect(refused?.status).toBe(503);
      expect(await refused!.json()).toMatchObject({ reason: 'disk_full' });

      const ready = await fetch(`${a.app.url}/readyz`);
      expect(ready.status).toBe(503);
      const checks = (await ready.json()) as { store: { ok: boolean; detail: string } };
      expect(checks.store.ok).toBe(false);
      expect(checks.store.detail).toContain('ENOSPC');

      // A withdrawal request needs a write: refused, nothing requested.
      const wd = await reply('/withdraw', `25 USDT BSC ${DEST} ${CLIENT} disk test`, USERS.alice);
      expect(wd).toContain(FULL);
      expect(a.app.deps.withdrawals.list()).toEqual([]);

      // Reads keep working.
      expect(await reply('/treasury', 'help')).toContain('Treasury commands');
      const status = await reply('/treasury', 'status', USERS.erin);
      expect(status).toContain('Treasury status');
      expect(status).toContain(FULL);
      // Anyone else reads it in one line.
      expect(await reply('/treasury', 'status')).toBe(
        ':red_circle: The app cannot save right now, so nothing can be requested or approved.',
      );
      expect(await reply('/tx', 'size=2')).toMatch(/Transactions|No transactions/);

      await disk.free();
      await eventually('readiness', async () =>
        (await fetch(`${a.app.url}/readyz`)).status === 200 ? true : undefined,
      );
      const after = await webhook(`0x${'c'.repeat(64)}`);
      expect(after.status).toBe(200);
      // What was acknowledged while the disk was filling is all there.
      const events = JSON.stringify(a.app.deps.store.all(ALERT_COLLECTIONS.events));
      for (const hash of [...taken, `0x${'c'.repeat(64)}`]) expect(events).toContain(hash);
      expect(await reply('/withdraw', `25 USDT BSC ${DEST} ${CLIENT} after the disk`, USERS.alice)).toContain(
        'Requested',
      );
      expect(a.app.deps.withdrawals.list()).toHaveLength(1);

      // The process never stopped, nothing rejected unhandled, no error logged as [object Object], every message fits Slack.
      expect((await fetch(`${a.app.url}/healthz`)).status).toBe(200);
      expect(unhandled).toEqual([]);
      expect(a.logs()).not.toContain('[object Object]');
      expect(a.logs()).toContain('ENOSPC');
      expect(limitViolations(a.fake.calls(), a.fake.responses)).toEqual([]);
    }, 60_000);
  });
}

scenario('a full disk through the write seam', seamDisk);
scenario('a real full disk (tmpfs as DATA_DIR)', tmpfsDisk);

describe('a withdrawal whose outcome could not be saved (the disk filled while it was being sent)', () => {
  it('is recovered once the disk takes writes again: reconciled, never resent', async () => {
    let full = false;
    const a = await startTestApp({
      store: {
        probeIntervalMs: 25,
        writeGate: (stage) =>
          full && stage !== 'cut' && stage !== 'dirsync'
            ? Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
            : undefined,
      },
    });
    try {
      a.app.sandbox!.setBalance(CLIENT, 'USDT', 'BSC', '1000000');
      const { responseUrl } = await a.command('/withdraw', `500 USDT BSC ${DEST} ${CLIENT} disk race`, USERS.alice);
      expect(visibleText((await a.replies(responseUrl))[0]!)).toContain('Requested');
      const [req] = a.app.deps.withdrawals.list();
      // The service answers slowly: the disk fills while the send is in flight.
      a.app.sandbox!.injectFault('/api/merchantClientWithdrawal', { kind: 'delay', ms: 600 }, 1);
      await a.click(USERS.carol, { actionId: 'wd_approve', value: req!.id }, { channel: 'C0APPROVALS' });
      // The send has reached the service (so its claim is on disk), and its answer is held back.
      // POSTs only: reconciliation also GETs /api/merchantClientWithdrawal/status/<reference>.
      const sent = () =>
        a.app.sandbox!.stats.requests.filter(
          (r) => r.method === 'POST' && r.path.startsWith('/api/merchantClientWithdrawal'),
        );
      await eventually('the send to reach the service', async () => (sent().length === 1 ? true : undefined));
      expect(a.app.deps.withdrawals.get(req!.id)?.state).toBe('executing');
      full = true;
      await eventually('the store to refuse a write', async () =>
        a.app.deps.store.health().writable ? undefined : true,
      );
      // Let the slow answer arrive and its outcome fail to save.
      await new Promise((r) => setTimeout(r, 800));
      expect(a.app.deps.withdrawals.get(req!.id)?.state).toBe('executing');

      full = false;
      const settled = await eventually('recovery after the disk has room', async () => {
        const s = a.app.deps.withdrawals.get(req!.id)?.state;
        return s === 'completed' || s === 'failed' ? s : undefined;
      });
      expect(settled).toBe('completed');
      expect(sent()).toHaveLength(1);
      expect(a.logs()).not.toContain('[object Object]');
    } finally {
      await a.stop();
    }
  }, 60_000);
});
