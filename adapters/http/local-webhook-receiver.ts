import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One POST as the receiver saw it. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** What the receiver does with a request: answer a status, or hold it open until `release()` / close. */
export type ReceiverReply = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string } | 'hang';

/** A plain node:http receiver on loopback for tests, the dev host and the bench (never a production component). */
export interface LocalWebhookReceiver {
  /** `http://<host>:<port>` of the listening socket. */
  readonly origin: string;
  readonly port: number;
  readonly received: readonly ReceivedWebhook[];
  /** TCP connections accepted so far (proves that a refused request never connected). */
  readonly connections: number;
  /** Requests being handled right now, and the most ever at once. */
  readonly concurrent: number;
  readonly maxConcurrent: number;
  /** Resolves once `count` requests have arrived in total. */
  waitFor(count: number): Promise<void>;
  /** Answers every held ('hang') request with the given status. */
  release(status?: number): void;
  close(): Promise<void>;
}

/**
 * Starts a receiver on `host` (default 127.0.0.1) and a free port. `reply` decides each answer after the whole
 * body has arrived; the default answers 200.
 */
export async function startLocalReceiver(
  reply: (request: ReceivedWebhook, index: number) => ReceiverReply = () => ({ status: 200 }),
  host = '127.0.0.1',
): Promise<LocalWebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let connections = 0;
  let concurrent = 0;
  let maxConcurrent = 0;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    res.on('close', () => { concurrent -= 1; });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedWebhook = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = received.push(request) - 1;
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = reply(request, index);
      if (answer === 'hang') held.push(res);
      else res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  };

  const server: Server = createServer(handle);
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://${host}:${port}`,
    port,
    received,
    get connections() { return connections; },
    get concurrent() { return concurrent; },
    get maxConcurrent() { return maxConcurrent; },
    waitFor(count) {
      return received.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
    },
    release(status = 200) {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
