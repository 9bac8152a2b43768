/**
 * The alert rules and the dashboard in ops/ speak only of metrics the app defines: a renamed
 * metric fails here, not silently in production. (`promtool check rules ops/*.yml` in CI checks
 * their syntax when Debian's prometheus package is there.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../src/metrics/registry.js';

const ops = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ops');

/** What Prometheus calls a metric name in an expression: what is left once labels, ranges, functions and keywords are gone. */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/(?<![\w:])\d[\w.]*/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['by', 'without', 'on', 'ignoring', 'bool', 'and', 'or', 'unless', 'offset']);
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter((m) => !m[2] && !keywords.has(m[1]!))
    .map((m) => m[1]!);
}

async function defined(): Promise<Set<string>> {
  const json = await createMetrics({ database: true }).registry.getMetricsAsJSON();
  const names = new Set<string>();
  for (const m of json) {
    names.add(m.name);
    // Histograms are queried through their series.
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

describe('ops/', () => {
  it('the expression parser finds metric names and nothing else', () => {
    expect(
      metricsIn(
        'sum by (le, operation) (rate(a_total{outcome=~"x|y"}[5m])) / on (job) b > 2 * c + 300 and time() - d offset 5m',
      ),
    ).toEqual(['a_total', 'b', 'c', 'd']);
  });

  it('every rule file has alerts whose expressions use only metrics the registry defines', async () => {
    const names = await defined();
    const files = readdirSync(ops).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    const alerts: string[] = [];
    for (const f of files) {
      const doc = parse(readFileSync(path.join(ops, f), 'utf8')) as {
        groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
      };
      for (const g of doc.groups) {
        for (const r of g.rules) {
          expect(typeof r.expr, `${f}: ${r.alert}`).toBe('string');
          const used = metricsIn(r.expr);
          expect(used.length, `${f}: ${r.alert} names no metric`).toBeGreaterThan(0);
          for (const n of used) expect(names.has(n), `${f}: ${r.alert} uses ${n}`).toBe(true);
          if (r.alert) alerts.push(r.alert);
        }
      }
    }
    // The issue's six: outbox, wallet errors, store, jobs, verification, freeze; and the replicas' three.
    expect(alerts).toEqual(
      expect.arrayContaining([
        'TreasuryNoLeader',
        'TreasuryInboxBacklog',
        'TreasuryDatabaseUnreachable',
        'TreasuryOutboxStuck',
        'TreasuryWalletErrors',
        'TreasuryStoreNotWritable',
        'TreasuryJobWithoutSuccess',
        'TreasuryVerificationRefused',
        'TreasuryFrozen',
      ]),
    );
  });

  it('the Grafana dashboard queries only metrics the registry defines', async () => {
    const names = await defined();
    const dash = JSON.parse(readFileSync(path.join(ops, 'grafana-dashboard.json'), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const used = new Set<string>();
    for (const p of dash.panels) {
      for (const t of p.targets) {
        for (const n of metricsIn(t.expr)) {
          expect(names.has(n), `${p.title} uses ${n}`).toBe(true);
          used.add(n);
        }
      }
    }
    // Every treasury_ metric is on the dashboard.
    for (const n of names) {
      if (!n.startsWith('treasury_') || /_(bucket|sum|count)$/.test(n) || n === 'treasury_job_interval_seconds')
        continue;
      const shown = [...used].some((u) => u === n || u.startsWith(`${n}_`));
      expect(shown, `${n} is on no panel`).toBe(true);
    }
  });
});
