/**
 * The checksum of the wallet service's withdrawal verification callback, as
 * shared/spec/public-facts.md defines it:
 * HEX(SHA512(HEX(SHA512(secretKey)) + merchantReference + ":" + destinationAddress)),
 * HEX being upper-case hexadecimal. One function, used by the app (answering) and the
 * sandbox (checking), so the two sides can never drift apart.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const sha512Hex = (text: string) => createHash('sha512').update(text, 'utf8').digest('hex').toUpperCase();

export function verificationChecksum(secretKey: string, merchantReference: string, destinationAddress: string): string {
  return sha512Hex(`${sha512Hex(secretKey)}${merchantReference}:${destinationAddress}`);
}

/** Equal strings, compared in time that does not depend on where they differ (nor on their lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first gives equal-length buffers, so a wrong length is not told apart by timing either.
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}
