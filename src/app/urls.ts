/** The app's own URLs, known only once its server listens. */

/** The verification callback's URL under `base` (secret included: never log or post it). */
export function verifyUrl(base: string, secret: string): string {
  return `${base.replace(/\/+$/, '')}/webhooks/wallet/${encodeURIComponent(secret)}/verify`;
}

export function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The app's own URL as seen from this process: a wildcard listener is reached on loopback. */
export function loopback(url: string): string {
  return url.replace('://localhost:', '://127.0.0.1:');
}
