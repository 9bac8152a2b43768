/**
 * The metrics part, built first: /metrics listens before the store is opened, so a replica
 * waiting for the lead (with DATABASE_URL) is scraped like the leader, saying `standby`, and
 * how it sees the database and the webhook inbox. The app's other gauges read their parts once
 * those exist (attachSources); until then they read as empty.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics/registry.js';
import { databaseProbe } from '../metrics/replica.js';
import { startMetricsServer } from '../metrics/server.js';
import type { CleanupStack } from './cleanup.js';

export interface MetricsPart {
  metrics: Metrics;
  /** Where /metrics is served; undefined when METRICS_PORT=0. */
  url: string | undefined;
  /** This replica leads now (the store is open): the role gauge says so. */
  leading(): void;
}

export async function buildMetrics(
  o: { config: Pick<Config, 'databaseUrl' | 'metricsPort' | 'host'>; logger: Logger },
  cleanup: CleanupStack,
): Promise<MetricsPart> {
  const { config } = o;
  const metrics = createMetrics({ database: !!config.databaseUrl });
  let role: 'leader' | 'standby' = 'standby';
  metrics.sources.role = () => role;
  if (config.databaseUrl) {
    const probe = databaseProbe({ url: config.databaseUrl, logger: o.logger });
    cleanup.push(() => probe.close());
    metrics.sources.database = () => probe.read();
  }
  const server =
    config.metricsPort > 0
      ? await startMetricsServer(metrics, { port: config.metricsPort, host: config.host, logger: o.logger })
      : undefined;
  if (server) {
    cleanup.push(() => server.close());
    o.logger.info({ url: server.url }, 'metrics served');
  }
  return {
    metrics,
    url: server?.url,
    leading: () => {
      role = 'leader';
    },
  };
}
