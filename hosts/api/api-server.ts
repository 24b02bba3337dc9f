import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type H3 } from 'h3';

/** A listening API server. */
export interface RunningServer {
  /** `http://host:port` (no trailing slash). */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, ends keep-alive connections, resolves once closed. */
  close(): Promise<void>;
}

/** Serves the h3 app on node:http; port 0 picks a free port. */
export async function startApiServer(h3: H3, options: { port: number; host?: string }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer(toNodeHandler(h3));
  // Headers of a slow client must not hold a socket forever; bodies are bounded by the 64 KiB limit.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    }),
  };
}
