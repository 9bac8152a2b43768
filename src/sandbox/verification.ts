/**
 * The wallet service's side of the withdrawal verification callback (shared/spec/public-facts.md):
 * before executing a withdrawal, `GET <verificationUrl>?reference=<merchantReference>` (in the
 * `verificationFields` mode, with the withdrawal's amount, currency, networkChain and
 * destinationAddress too, as a deployment may send them); the withdrawal is executed only if
 * the merchant answers `isVerified` true (a boolean or the string "true", as the public docs
 * show both) with the right checksum. Anything else (false,
 * a wrong checksum, a non-200, a body that is not JSON, no answer within the timeout, an
 * unreachable URL) is a refusal: the service would not execute what it could not verify.
 */
import { z } from 'zod';
import { constantTimeEqual, verificationChecksum } from '../verification/checksum.js';

export type VerificationUrl = string | (() => string | undefined | Promise<string | undefined>);

export const NOT_VERIFIED = 'Withdrawal not verified by merchant';

const answerSchema = z.object({
  isVerified: z.union([z.boolean(), z.string()]).transform((v) => v === true || v === 'true'),
  checksum: z.string(),
});

export type VerificationResult = { ok: true } | { ok: false; why: string };

/** Asks the merchant; `url` undefined means no verification is configured (execute as before). */
export async function verifyWithMerchant(o: {
  url: VerificationUrl | undefined;
  secretKey: string;
  reference: string;
  destination: string;
  timeoutMs: number;
  /** Query parameters sent besides the reference (the sandbox's `verificationFields` mode). */
  fields?: Readonly<Record<string, string>>;
}): Promise<VerificationResult | undefined> {
  if (o.url === undefined) return undefined;
  const signal = AbortSignal.timeout(o.timeoutMs);
  try {
    const base = await Promise.race([
      typeof o.url === 'function' ? o.url() : o.url,
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
    if (base === undefined) return undefined;
    const target = new URL(base);
    target.searchParams.set('reference', o.reference);
    for (const [name, value] of Object.entries(o.fields ?? {})) target.searchParams.set(name, value);
    const res = await fetch(target, { signal, headers: { accept: 'application/json' }, redirect: 'error' });
    const text = await res.text();
    if (res.status !== 200) return { ok: false, why: `the merchant answered HTTP ${res.status}` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, why: 'the merchant’s answer is not JSON' };
    }
    const parsed = answerSchema.safeParse(body);
    if (!parsed.success) return { ok: false, why: 'the merchant’s answer has no isVerified and checksum' };
    if (!parsed.data.isVerified) return { ok: false, why: 'the merchant answered isVerified false' };
    const expected = verificationChecksum(o.secretKey, o.reference, o.destination);
    if (!constantTimeEqual(parsed.data.checksum.toUpperCase(), expected))
      return { ok: false, why: 'the merchant’s checksum does not match this withdrawal' };
    return { ok: true };
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    return {
      ok: false,
      why:
        name === 'TimeoutError' || name === 'AbortError'
          ? 'the merchant did not answer in time'
          : 'the merchant could not be reached',
    };
  }
}
