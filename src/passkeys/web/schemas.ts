/** What the passkey pages send, checked at the edge (zod) before anything reads it. */
import { z } from 'zod';

const b64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/, 'base64url');

/** @simplewebauthn/browser's RegistrationResponseJSON. */
export const registrationBody = z.object({
  name: z.string().trim().max(40).default(''),
  response: z.object({
    id: b64url.min(1),
    rawId: b64url.min(1),
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: b64url,
      attestationObject: b64url,
      authenticatorData: b64url.optional(),
      transports: z.array(z.string().max(20)).max(10).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: b64url.optional(),
    }),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  }),
});

/** @simplewebauthn/browser's AuthenticationResponseJSON. */
export const authenticationBody = z.object({
  response: z.object({
    id: b64url.min(1),
    rawId: b64url.min(1),
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: b64url,
      authenticatorData: b64url,
      signature: b64url,
      userHandle: b64url.optional(),
    }),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  }),
});

/** A name typed for a passkey: printable, no markup characters (it is echoed in Slack and on pages). */
export const passkeyName = z
  .string()
  .trim()
  .max(40)
  .regex(/^[^<>&*_~`|\p{C}]*$/u, 'letters, digits, spaces and simple punctuation only');
