/**
 * With the embedded store the one process leads: /metrics says `leader`, so the "no leader"
 * rule holds for a single instance too, and has none of the database and inbox gauges, which
 * only mean something with PostgreSQL (test/replica/metrics.test.ts covers those).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from '../helpers/treasury-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('/metrics with the embedded store', () => {
  it('says leader, and has no database or inbox gauges', async () => {
    const metricsPort = await freePort();
    t = await startTestApp({ env: { METRICS_PORT: String(metricsPort) } });
    const text = await (await fetch(t.app.metricsUrl!)).text();
    expect(text).toContain('treasury_replica_role{role="leader"} 1');
    expect(text).toContain('treasury_replica_role{role="standby"} 0');
    expect(text).not.toMatch(/^treasury_(database|inbox)_/m);
  });
});
