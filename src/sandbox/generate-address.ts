/**
 * Wallet address generation (`/api/v1/walletaddress/generate`, POST or GET with a body).
 * Deterministic: the same merchant, client, currency and network always get the same
 * address. Two e-mail conventions reach the other generation states:
 *   a client e-mail containing "+pending"  -> addressGenerationStatus 2 (pending), no address yet
 *   a client e-mail containing "+failfail" -> addressGenerationStatus 3 (failed), no address
 */
import { z } from 'zod';
import { currencySchema, networkSchema } from '../wallet/enums.js';
import { v1Fail, v1Ok, type Reply } from './envelopes.js';
import { describeIssues, missingFields, plainJsonObject } from './body.js';
import { requireApiKey, type AuthDeps } from './auth.js';
import type { SandboxRequest } from './http.js';

const body = z.object({
  clientEmailAddress: z.email({ error: 'must be a valid e-mail address' }),
  currency: currencySchema,
  networkChain: networkSchema,
  publicKey: z.string().min(1),
});

export function generateAddress(deps: AuthDeps, req: SandboxRequest): Reply {
  const auth = requireApiKey(deps, req);
  if (!auth.ok) return auth.reply;
  const parsed = plainJsonObject(req);
  if (!parsed.ok) return v1Fail('Invalid request', parsed.message);
  const missing = missingFields(parsed.value, ['clientEmailAddress', 'currency', 'networkChain', 'publicKey']);
  if (missing.length) return v1Fail('Invalid request', `Missing required field(s): ${missing.join(', ')}`);
  const input = body.safeParse(parsed.value);
  if (!input.success) return v1Fail('Invalid request', describeIssues(input.error));
  const { clientEmailAddress, currency, networkChain, publicKey } = input.data;
  const merchant = auth.merchant;
  if (publicKey !== merchant.publicKey)
    return v1Fail('Invalid public key', 'publicKey does not belong to this merchant');

  const client = deps.state.ensureClient(merchant.email, clientEmailAddress);
  const local = clientEmailAddress.split('@')[0]!.toLowerCase();
  if (local.includes('+failfail')) {
    return v1Ok(
      {
        address: '',
        merchantClientId: client.id,
        addressGenerationStatus: 3,
        addressGenerationMessage: 'Address generation failed',
        addressGenerationTransactionHash: null,
      },
      'Wallet address generation failed',
    );
  }
  if (local.includes('+pending')) {
    return v1Ok(
      {
        address: '',
        merchantClientId: client.id,
        addressGenerationStatus: 2,
        addressGenerationMessage: 'Address generation is pending',
        addressGenerationTransactionHash: null,
      },
      'Wallet address generation is pending',
    );
  }
  const address = deps.state.ensureAddress(merchant.email, clientEmailAddress, currency, networkChain);
  return v1Ok(
    {
      address,
      merchantClientId: client.id,
      addressGenerationStatus: 1,
      addressGenerationMessage: 'Address generated',
      addressGenerationTransactionHash: null,
    },
    'Wallet address generated successfully',
  );
}
