/**
 * The wallet client's withdrawal status by reference (src/wallet/client/withdrawal-status.ts)
 * must be an answer about OUR reference: one naming another is a malformed answer (the
 * reconciler treats it as the service unreachable), never read as ours.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WalletValidationError } from '../../src/wallet/errors.js';
import { clientFor, sendJson, stubServer, type StubServer, walletError } from '../wallet/helpers.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const answering = async (data: Record<string, unknown>) => {
  stub = await stubServer((_req, res) => sendJson(res, 200, { status: 1, message: 'ok', data }));
  return clientFor(stub).client;
};

describe('the withdrawal status answer names our reference', () => {
  it('an answer naming another merchant reference is a response error, not our status', async () => {
    const client = await answering({ merchantReference: 'ref-someone-else', withdrawalStatus: 3, amount: 10 });
    const err = await walletError<WalletValidationError>(client.withdrawalStatus('ref-w1'), 'validation');
    expect(err.source).toBe('response');
    expect(err.message).toMatch(/another merchant reference/);
  });

  it('an answer naming ours (or none) is read as ours', async () => {
    const client = await answering({ merchantReference: ' ref-w1 ', withdrawalStatus: 3, amount: '10.5' });
    expect(await client.withdrawalStatus('ref-w1')).toMatchObject({
      status: 'completed',
      merchantReference: 'ref-w1',
      amount: '10.5',
    });
    await stub!.close();
    const bare = await answering({ withdrawalStatus: 2 });
    expect(await bare.withdrawalStatus('ref-w1')).toMatchObject({ status: 'pending', merchantReference: 'ref-w1' });
  });
});
