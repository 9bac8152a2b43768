/**
 * The table of alert kinds (src/alert-kinds.ts) is the one place a kind is named: every wire type
 * the service sends reads as the kind the table says, every kind is counted under its own metric
 * label (remittances and transfers were counted as "other" while the label list was kept by hand),
 * and a policy route may name every kind the table routes.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_KIND_NAMES, ALERT_KINDS, kindOfType, ROUTE_KINDS } from '../../src/alert-kinds.js';
import { readWebhook } from '../../src/alerts/parse.js';
import { label, WEBHOOK_KINDS } from '../../src/metrics/registry.js';
import { parsePolicy } from '../../src/policy/load.js';
import { WEBHOOK_TYPES } from '../../src/wallet/enums.js';
import { POLICY_YAML } from './setup.js';

/** The test policy with a first route for `kind`. */
const withRoute = (kind: string) =>
  POLICY_YAML.replace('  routes:\n', `  routes:\n    - { kind: ${kind}, channel: C0ROUTED1 }\n`);

describe('the table of alert kinds', () => {
  it('reads every webhook type the service sends as the kind the table names it under, by name and by code', () => {
    const read = Object.fromEntries(
      WEBHOOK_TYPES.map((t) => [t.name, readWebhook({ TransactionType: t.code, Amount: 1 }).kind]),
    );
    expect(read).toEqual({
      DEPOSIT: 'deposit',
      MERCHANT_DEPOSIT: 'deposit',
      WITHDRAW: 'withdrawal',
      TRANSFER: 'transfer',
      REMITTANCE: 'remittance',
    });
    for (const t of WEBHOOK_TYPES) expect(readWebhook({ TransactionType: t.name }).kind).toBe(kindOfType(t.name));
    expect(readWebhook({ TransactionType: 'AIRDROP' }).kind).toBe('unknown');
    expect(kindOfType(undefined)).toBe('unknown');
  });

  it('names each wire type under one kind only', () => {
    const all = ALERT_KIND_NAMES.flatMap((k) => ALERT_KINDS[k].wireTypes);
    expect(new Set(all).size).toBe(all.length);
  });

  it('counts every kind under its own metric label, never "other"', () => {
    expect(WEBHOOK_KINDS).toEqual(['deposit', 'withdrawal', 'remittance', 'transfer', 'unknown']);
    for (const k of ALERT_KIND_NAMES) expect(label(ALERT_KINDS[k].metric, WEBHOOK_KINDS)).toBe(k);
    expect(label('airdrop', WEBHOOK_KINDS)).toBe('other');
  });

  it('lets a policy route name every routed kind, and refuses a kind the table does not route', () => {
    expect(ROUTE_KINDS).toEqual(['deposit', 'withdrawal', 'remittance', 'transfer']);
    for (const kind of ROUTE_KINDS) {
      const p = parsePolicy(withRoute(kind));
      expect(p.channels.routes[0]!.kind).toBe(kind);
    }
    expect(() => parsePolicy(withRoute('unknown'))).toThrow(/kind/);
  });
});
