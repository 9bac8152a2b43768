/**
 * The app as a child process, built as production runs it (`node dist/src/main.js`, built once
 * by `ensureBuilt`, as the startup bench's `npm start` does; not through tsx, whose on-the-fly
 * transpiling would add to the start and the memory measured) in HTTP mode, the recording fake Slack in the bench's
 * process, the embedded sandbox as its wallet service) on a filled store: time to ready (spawn
 * to `/readyz` 200), its resident memory once ready (VmRSS, read from /proc), and the latency
 * of `/treasury withdrawal <ref>` as Slack sends it: a signed slash command over HTTP, timed
 * until the answer reaches the response_url (the fake's).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeSlack } from '../../test/helpers/fake-slack.js';
import { sendToBolt, slashCommand } from '../../test/helpers/slack-requests.js';
import { CHANNELS, freePort, USERS } from '../../test/helpers/treasury-app.js';
import { median, nowMs } from '../lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SIGNING_SECRET = 'bench-history-signing-secret-0001';
const READY_TIMEOUT_MS = 600_000;

export interface Replica {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
  /** Resolves with ms from spawn to `/readyz` 200 (a standby answers 503 until it leads). */
  ready(from?: number): Promise<number>;
  /** Resolves once `/readyz` answers at all (a standby: 503). */
  answering(): Promise<void>;
  /** Resident memory now, in MiB. */
  rssMiB(): number;
  /** The median of `n` samples of resident memory taken `everyMs` apart. */
  rssSampled(n?: number, everyMs?: number): Promise<number>;
  stop(): Promise<void>;
}

/** Builds dist/ if it is not current (scripts/build.mjs --if-stale, as npm's prestart does). */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}

export async function statusOf(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/** `dir` holds policy.yml (and the embedded store, without `databaseUrl`). */
export async function startReplica(o: { dir: string; fake: FakeSlack; databaseUrl?: string }): Promise<Replica> {
  const port = await freePort();
  const started = nowMs();
  const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: o.dir,
      ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
      POLICY_FILE: path.join(o.dir, 'policy.yml'),
      SLACK_BOT_TOKEN: 'xoxb-bench-history-0123456789',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      SLACK_API_URL: o.fake.url,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4_000);
  });
  const exited = new Promise<void>((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );
  const url = `http://127.0.0.1:${port}`;
  const poll = async (what: string, ok: (status: number | undefined) => boolean): Promise<number> => {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the app exited before ${what}: ${stderr}`);
      if (ok(await statusOf(`${url}/readyz`))) return nowMs();
      if (nowMs() - started > READY_TIMEOUT_MS) throw new Error(`the app was not ${what} in time: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const rssMiB = () => {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  };
  return {
    child,
    url,
    exited,
    ready: async (from = started) => (await poll('ready', (s) => s === 200)) - from,
    answering: async () => void (await poll('answering', (s) => s !== undefined)),
    rssMiB,
    async rssSampled(n = 5, everyMs = 200) {
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, everyMs));
        samples.push(rssMiB());
      }
      return median(samples);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

/** `/treasury withdrawal <ref>` as a viewer, for each reference in turn: ms from the POST to the answer. */
export async function lookups(r: Replica, fake: FakeSlack, refs: readonly string[]): Promise<number[]> {
  const times: number[] = [];
  for (const ref of refs) {
    const responseUrl = fake.responseUrl({ channel: CHANNELS.command, user: USERS.viewer });
    const body = slashCommand({
      command: '/treasury',
      text: `withdrawal ${ref}`,
      userId: USERS.viewer,
      channelId: CHANNELS.command,
      responseUrl,
    });
    const t = nowMs();
    const res = await sendToBolt(r.url, SIGNING_SECRET, body);
    if (res.status !== 200) throw new Error(`/treasury withdrawal answered ${res.status}: ${res.body}`);
    for (;;) {
      const answer = fake.responses.find((x) => x.url === responseUrl);
      if (answer) {
        const text = JSON.stringify(answer.body);
        // The answer must be about the reference asked for, not any withdrawal's card.
        if (!text.includes(ref)) throw new Error(`/treasury withdrawal ${ref} did not find it: ${text.slice(0, 300)}`);
        break;
      }
      if (nowMs() - t > 30_000) throw new Error(`no answer to /treasury withdrawal ${ref}`);
      await new Promise((res) => setTimeout(res, 1));
    }
    times.push(nowMs() - t);
  }
  return times;
}
