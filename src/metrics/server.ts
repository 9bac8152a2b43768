/**
 * GET /metrics on METRICS_PORT, apart from the app's own port: the app's port may face the
 * internet (Slack, the wallet service's webhooks), metrics belong to the operator's network.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import type { Metrics } from './registry.js';

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: Metrics,
  o: { port: number; host: string; logger: Logger },
): Promise<MetricsServer> {
  const { registry } = metrics;
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        o.logger.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  return {
    url: `http://${shown}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
