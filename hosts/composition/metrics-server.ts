import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CustodyMetrics } from './metrics.js';

/** What `/healthz` answers: ok (200) or not (503), with details for the operator. */
export interface HealthReport {
  readonly ok: boolean;
  readonly [detail: string]: unknown;
}

/** A listening metrics server. */
export interface MetricsServer {
  /** `http://host:port` as bound (port 0 resolved). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text) and `GET /healthz` on their own port (METRICS_PORT), apart from the public
 * API: the metrics name routes, error codes and volumes an outsider should not read, so the port stays on the
 * internal network (docs/operations.md). Anything else is 404.
 */
export async function startMetricsServer(
  metrics: CustodyMetrics, options: { readonly port: number; readonly host: string; readonly health?: () => HealthReport },
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      metrics.metrics().then((text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text);
      }, (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(error as Error).message}\n`);
      });
    } else if (path === '/healthz') {
      const report = options.health?.() ?? { ok: true };
      res.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: report.ok ? 'ok' : 'failing', ...report }));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => { server.off('error', reject); resolve(); });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
