/**
 * The benchmarks' "world" in a child process: the sandbox wallet service and the recording
 * fake Slack Web API, both of which are remote in production. Run in the same process as the
 * app, their work (filtering seeded transactions for /tx, generating addresses, recording
 * response_url posts, chat.postMessage bookkeeping) runs on the app's event loop and is
 * counted against its acks; here it runs on its own. The parent (bench/world-client.ts)
 * drives it over Node's IPC channel with small request/answer messages.
 *
 * Times reported back (`at`) are process.hrtime values in ms: CLOCK_MONOTONIC, the same
 * clock in both processes on one machine, so they compare with the parent's nowMs().
 */
import { createSandbox, SANDBOX_MERCHANT, type RecordedRequest, type Sandbox } from '../src/sandbox/index.js';
import { startFakeSlack, type FakeSlack, type ResponseUrlOptions } from '../src/local/slack-api.js';
import { nowMs } from './lib.js';

export interface WorldInit {
  usergroups?: Record<string, string[]>;
}

export interface WorldInfo {
  fakeSlackUrl: string;
  sandboxUrl: string;
  merchant: { email: string; password: string; apiKey: string; publicKey: string };
}

/** The operations the parent may ask for; each answers with `result` or `error`. */
export interface WorldOps {
  init(o: WorldInit): Promise<WorldInfo>;
  responseUrls(n: number, o: ResponseUrlOptions): string[];
  /** Resolves once every url has a recorded post; checks each is 200 and its text matches `pattern`. */
  awaitReplies(urls: string[], pattern: string, timeoutMs: number): Promise<{ replies: number }>;
  setBalance(clientEmail: string, currency: string, network: string, amount: string): void;
  channel(id: string): Array<{ ts: string; text?: string; blocks?: unknown[] }>;
  sandboxStats(): { withdrawals: number; withdrawalsCommitted: number };
  /** When each request whose path starts with `pathPrefix` and whose body holds `needle` reached the sandbox. */
  arrivals(pathPrefix: string, needles: string[]): Record<string, number | undefined>;
  /** Resolves once at least `n` file uploads are complete in all (the /address QR codes). */
  awaitFiles(n: number, timeoutMs: number): Promise<{ files: number }>;
  /** A simulated deposit (listed, and notified to the registered webhook URL): its hash. */
  deposit(to: string, amount: string, currency: string, network: string): Promise<{ hash: string }>;
  /** How many requests reached the sandbox with a path containing `part`, and how many of those also contain `also`. */
  countRequests(part: string, also?: string): { count: number; matching: number };
  close(): Promise<void>;
}

export type WorldRequest = { id: number; op: keyof WorldOps; args: unknown[] };
export type WorldAnswer = { id: number; result?: unknown; error?: string };

let fake: FakeSlack | undefined;
let sandbox: Sandbox | undefined;
const arrivedAt = new WeakMap<RecordedRequest, number>();

function world(): { fake: FakeSlack; sandbox: Sandbox } {
  if (!fake || !sandbox) throw new Error('world not initialised: call init first');
  return { fake, sandbox };
}

const ops: WorldOps = {
  async init(o) {
    fake = await startFakeSlack({ usergroups: o.usergroups ?? {} });
    sandbox = await createSandbox({ port: 0 });
    // Stamp each request as the sandbox logs it: exact, and no polling on the loop.
    const log = sandbox.stats.requests;
    const push = log.push.bind(log);
    Object.defineProperty(log, 'push', {
      configurable: true,
      value: (...items: RecordedRequest[]) => {
        const t = nowMs();
        for (const item of items) arrivedAt.set(item, t);
        return push(...items);
      },
    });
    return { fakeSlackUrl: fake.url, sandboxUrl: sandbox.url, merchant: { ...SANDBOX_MERCHANT } };
  },
  responseUrls(n, o) {
    const { fake } = world();
    return Array.from({ length: n }, () => fake.responseUrl(o));
  },
  async awaitReplies(urls, pattern, timeoutMs) {
    const { fake } = world();
    const re = new RegExp(pattern);
    const wanted = new Set(urls);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = fake.responses.filter((r) => wanted.has(r.url) && r.status !== 0);
      if (got.length >= urls.length) {
        const bad = got.find((r) => r.status !== 200 || !re.test(String(r.body.text ?? '')));
        if (bad) throw new Error(`reply ${bad.status} ${JSON.stringify(bad.body).slice(0, 300)}`);
        return { replies: got.length };
      }
      if (Date.now() > deadline) throw new Error(`${got.length} of ${urls.length} replies after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  },
  setBalance(clientEmail, currency, network, amount) {
    world().sandbox.setBalance(clientEmail, currency, network, amount);
  },
  channel(id) {
    return world()
      .fake.channel(id)
      .map((m) => ({ ts: m.ts, text: m.text, blocks: m.blocks }));
  },
  sandboxStats() {
    const { withdrawals, withdrawalsCommitted } = world().sandbox.stats;
    return { withdrawals, withdrawalsCommitted };
  },
  arrivals(pathPrefix, needles) {
    const recs = world().sandbox.stats.requests.filter((r) => r.path.startsWith(pathPrefix));
    const out: Record<string, number | undefined> = {};
    for (const n of needles) {
      const rec = recs.find((r) => r.body.includes(n));
      out[n] = rec ? arrivedAt.get(rec) : undefined;
    }
    return out;
  },
  async awaitFiles(n, timeoutMs) {
    const { fake } = world();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const files = fake.files().length;
      if (files >= n) return { files };
      if (Date.now() > deadline) throw new Error(`${files} of ${n} file uploads after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  },
  async deposit(to, amount, currency, network) {
    const tx = await world().sandbox.deposit({ to, amount, currency, network });
    return { hash: tx.transactionHash };
  },
  countRequests(part, also) {
    const recs = world().sandbox.stats.requests.filter((r) => r.path.includes(part));
    return { count: recs.length, matching: also ? recs.filter((r) => r.path.includes(also)).length : 0 };
  },
  async close() {
    await fake?.close();
    await sandbox?.close();
    fake = undefined;
    sandbox = undefined;
  },
};

if (!process.send) {
  console.error('bench/world.ts runs as a child of a benchmark (bench/world-client.ts), with an IPC channel');
  process.exit(2);
}
process.on('message', (msg: WorldRequest) => {
  const fn = ops[msg.op] as (...a: unknown[]) => unknown;
  Promise.resolve()
    .then(() => fn(...msg.args))
    .then(
      (result) => process.send!({ id: msg.id, result } satisfies WorldAnswer),
      (err: unknown) =>
        process.send!({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorldAnswer),
    );
});
// The parent going away (crash, Ctrl+C) must not leave this process behind.
process.on('disconnect', () => {
  void ops.close().finally(() => process.exit(0));
});
