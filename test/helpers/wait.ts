/** Poll until fn returns something truthy; fail with what was awaited, not at the test timeout. */
export async function until<T>(
  what: string,
  fn: () => T | undefined | null | false,
  timeoutMs = 8000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls an async check until it gives something truthy; fails with what was awaited. */
export async function untilAsync<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 8000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
