import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorkerProcess } from './start-worker.js';

/** A TCP server that accepts and never answers: a node whose calls hang until the client's own timeout. */
async function silentNode(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('startWorkerProcess: stop within a deadline', () => {
  it('gives up waiting for a pass stuck on a node after the deadline and reports it (the process then exits 1; leases hand the work on)', async () => {
    const node = await silentNode();
    cleanups.push(node.close);
    const env = {
      NODE_ENV: 'production', STORE: 'memory', ALLOW_EPHEMERAL: 'true', CHAIN: 'devnet', TRON_FULL_HOST: node.url,
      USDT_CONTRACT: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    };
    const stuck = await startWorkerProcess(env);
    // Let the balance scanner's first pass reach the silent node.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    expect(await stuck.stop(400)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
    await stuck.composition.close();
  }, 30_000);
});
