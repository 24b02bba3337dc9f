import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CATALOGUE, type ErrorCode } from '../../core/domain/errors.js';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type H3 } from 'h3';
import { httpStatusOf } from './error-status.js';

/** A listening API server. */
export interface RunningServer {
  /** `http://host:port` (no trailing slash). */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, ends keep-alive connections, resolves once closed. */
  close(): Promise<void>;
}

/** The catalogue code of an error node:http raises before a request reaches h3 (its own default mapping). */
function clientErrorCode(error: NodeJS.ErrnoException): ErrorCode {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': return 'HEADERS-TOO-LARGE';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW': return 'PAYLOAD-TOO-LARGE';
    case 'ERR_HTTP_REQUEST_TIMEOUT': return 'REQUEST-TIMEOUT';
    default: return 'BAD-REQUEST';
  }
}

/**
 * node:http's own answers (bad framing, headers over 16 KiB, a request timeout) carry the envelope like every other
 * answer (issue #13). Only where the server allows it: a socket already reset, or one whose response has begun,
 * is destroyed without a word, as node itself does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const code = clientErrorCode(error);
  const status = httpStatusOf(code);
  const { message } = ERROR_CATALOGUE[code];
  const body = JSON.stringify({ code, message, data: {} });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n`
    + `Connection: close\r\n\r\n${body}`,
  );
}

/** Serves the h3 app on node:http; port 0 picks a free port. */
export async function startApiServer(h3: H3, options: { port: number; host?: string }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer(toNodeHandler(h3));
  server.on('clientError', answerClientError);
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
