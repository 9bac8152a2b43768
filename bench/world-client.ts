/**
 * Starts bench/world.ts (sandbox + fake Slack) in a child process and calls it. Every
 * benchmark that compares our app with a bare Bolt app points both at the same world, so
 * the only work left in the measuring process is the apps' own and the load generator's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorldAnswer, WorldInfo, WorldInit, WorldOps, WorldRequest } from './world.js';

type Promised<F> = F extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never;
export type World = { [K in keyof WorldOps]: Promised<WorldOps[K]> } & { info: WorldInfo; child: ChildProcess };

export async function startWorld(o: WorldInit = {}): Promise<World> {
  const child = fork(fileURLToPath(new URL('./world.ts', import.meta.url)), [], {
    // tsx resolved from here, so the bench works from any working directory.
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (a: WorldAnswer) => {
    const p = pending.get(a.id);
    if (!p) return;
    pending.delete(a.id);
    if (a.error !== undefined) p.reject(new Error(`world: ${a.error}`));
    else p.resolve(a.result);
  });
  child.on('exit', (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`world process exited (${code ?? signal})`));
    pending.clear();
  });
  const call = (op: keyof WorldOps, ...args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      child.send({ id, op, args } satisfies WorldRequest);
    });
  const proxy = Object.fromEntries(
    (
      [
        'init',
        'responseUrls',
        'awaitReplies',
        'setBalance',
        'channel',
        'sandboxStats',
        'arrivals',
        'awaitFiles',
        'deposit',
        'countRequests',
        'close',
      ] as const
    ).map((op) => [op, (...a: unknown[]) => call(op, ...a)]),
  ) as unknown as { [K in keyof WorldOps]: Promised<WorldOps[K]> };
  const close = async () => {
    if (child.exitCode !== null) return;
    await proxy.close().catch(() => undefined);
    const exited = new Promise((r) => child.once('exit', r));
    child.disconnect();
    await exited;
  };
  const info = await proxy.init(o);
  return { ...proxy, close, info, child };
}
