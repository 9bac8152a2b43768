/**
 * How long the event loop was held, measured by a timer probe: a timer every `everyMs`; each gap
 * beyond that is a delay. On a shared machine the process may also wait for a CPU (load above the
 * core count), which is no fault of the code under test: each gap is therefore counted as the
 * smaller of its wall time and the CPU time the process used in it (process.cpuUsage, all
 * threads: an upper bound of the main thread's own work). On an idle machine the two agree.
 */
export interface LoopProbe {
  /** Forget what was measured so far. */
  reset(): void;
  /** The longest delay since the last reset, ms: held on the CPU, and in wall time. */
  max(): { held: number; wall: number };
  stop(): void;
}

export function startLoopProbe(everyMs = 5): LoopProbe {
  let held = 0;
  let wall = 0;
  let lastAt = performance.now();
  let lastCpu = process.cpuUsage();
  let timer: NodeJS.Timeout;
  const tick = () => {
    const at = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const gap = Math.max(0, at - lastAt - everyMs);
    const used = (cpu.user + cpu.system) / 1000;
    held = Math.max(held, Math.min(gap, used));
    wall = Math.max(wall, gap);
    lastAt = at;
    lastCpu = process.cpuUsage();
    timer = setTimeout(tick, everyMs);
  };
  timer = setTimeout(tick, everyMs);
  return {
    reset() {
      held = 0;
      wall = 0;
    },
    max: () => ({ held, wall }),
    stop: () => clearTimeout(timer),
  };
}
