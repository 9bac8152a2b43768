/**
 * Reconciliation against the sandbox's transaction list (its variety on): the public SDK's
 * Pending and Initiated records are not final, so they are neither alerted as failed nor as
 * confirmed; a Successful one of the same run is.
 */
import { afterEach, expect, it } from 'vitest';
import { ALERT_COLLECTIONS, type Alert } from '../../src/alerts/index.js';
import { startPipeline, type Pipeline } from './setup.js';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

it('Pending and Initiated deposits in the list are not final: no alert until the list says Successful or Failed', async () => {
  p = await startPipeline();
  await p.alerts.reconcile(); // records the watermark: what follows is news
  const at = Date.now() - 10;
  const deposit = (hash: string, transactionStatus: 'PENDING' | 'INITIATED' | 'SUCCESSFUL') => ({
    transactionType: 'Deposit' as const,
    transactionStatus,
    currency: 'USDT',
    network: 'BSC',
    amount: '12.5',
    transactionHash: hash,
    transactionTimeStamp: at,
  });
  const hp = `0x${'a'.repeat(64)}`;
  const hi = `0x${'b'.repeat(64)}`;
  const hs = `0x${'c'.repeat(64)}`;
  p.sandbox.resetTransactions([deposit(hp, 'PENDING'), deposit(hi, 'INITIATED'), deposit(hs, 'SUCCESSFUL')]);
  const report = await p.alerts.reconcile();
  expect(report.seen).toBe(3);
  const alerts = p.store.all<Alert>(ALERT_COLLECTIONS.alerts);
  expect(alerts.map((a) => [a.hash, a.status])).toEqual([[hs, 'CONFIRMED']]);

  // The list moves on: the one that was Pending is now Failed, and is alerted as such.
  p.sandbox.resetTransactions([
    { ...deposit(hp, 'SUCCESSFUL'), transactionStatus: 'FAILED' },
    deposit(hs, 'SUCCESSFUL'),
  ]);
  await p.alerts.reconcile();
  const after = p.store.all<Alert>(ALERT_COLLECTIONS.alerts);
  expect(after.find((a) => a.hash === hp)?.status).toBe('FAILED');
  expect(after.some((a) => a.hash === hi)).toBe(false);
});
