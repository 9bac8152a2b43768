/**
 * A replica as a real process (src/main.ts under tsx, HTTP mode, PostgreSQL), for the failover
 * and chaos tests: spawn it, read what it printed, ask its routes, and stop every one left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from '../store/helpers.js';
import { freePort } from './treasury-app.js';
import { nodeArgs } from './built.js';

export interface ReplicaProcess {
  child: ChildProcess;
  url: string;
  out: () => string;
  /** The exit code (null after a signal), once it exits. */
  exited: Promise<number | null>;
}

export interface ReplicaEnv {
  databaseUrl: string;
  slackApiUrl: string;
  dataDir: string;
  policyFile: string;
  webhookSecret: string;
  env?: Record<string, string>;
}

/** The Slack signing secret every replica is started with (signed requests: test/helpers/slack-requests.ts). */
export const REPLICA_SIGNING_SECRET = 'replica-test-signing-secret-01';

const running = new Set<ReplicaProcess>();

export async function spawnReplica(o: ReplicaEnv): Promise<ReplicaProcess> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: o.dataDir,
      DATABASE_URL: o.databaseUrl,
      POLICY_FILE: o.policyFile,
      SLACK_BOT_TOKEN: 'xoxb-replica-test-0123456789',
      SLACK_SIGNING_SECRET: REPLICA_SIGNING_SECRET,
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      SLACK_API_URL: o.slackApiUrl,
      WEBHOOK_SECRET: o.webhookSecret,
      LOG_LEVEL: 'info',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const r = { child, url: `http://127.0.0.1:${port}`, out: () => out, exited };
  running.add(r);
  void exited.then(() => running.delete(r));
  return r;
}

/** SIGKILLs every replica still running (resumed first if stopped). */
export async function killReplicas(): Promise<void> {
  await Promise.all(
    [...running].map(async (r) => {
      r.child.kill('SIGCONT');
      r.child.kill('SIGKILL');
      await r.exited;
    }),
  );
}

export const alive = (r: ReplicaProcess) => r.child.exitCode === null && r.child.signalCode === null;

/** The status of one GET, or undefined when nothing answers. */
export async function status(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/** Polls `route` until it answers `want`; the time it took. Fails with the replica's output. */
export async function waitStatus(r: ReplicaProcess, route: string, want: number, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if ((await status(`${r.url}${route}`)) === want) return Date.now() - start;
    if (r.child.exitCode !== null) throw new Error(`replica exited ${r.child.exitCode}: ${r.out().slice(-3000)}`);
    if (Date.now() - start > timeoutMs)
      throw new Error(`${route} was not ${want} within ${timeoutMs} ms: ${r.out().slice(-3000)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/** The first of `replicas` whose /readyz answers 200 within the time; the time it took. */
export async function firstReady(
  replicas: ReplicaProcess[],
  timeoutMs: number,
): Promise<{ leader: ReplicaProcess; ms: number }> {
  const start = Date.now();
  for (;;) {
    for (const r of replicas)
      if (alive(r) && (await status(`${r.url}/readyz`)) === 200) return { leader: r, ms: Date.now() - start };
    if (Date.now() - start > timeoutMs)
      throw new Error(
        `no replica was ready within ${timeoutMs} ms:\n${replicas.map((r) => r.out().slice(-2000)).join('\n---\n')}`,
      );
    await new Promise((res) => setTimeout(res, 25));
  }
}
