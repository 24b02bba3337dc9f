import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import { ConfigError, loadConfig } from './config.js';
import { withDevnetContract } from './devnet-contract.js';

/** A node that is no devnet: it answers every request, /sim/info with 404 (a java-tron or a provider). */
let node: Server;
let url = '';
beforeAll(async () => {
  node = createServer((_req, res) => { res.writeHead(404, { 'content-type': 'application/json' }).end('{}'); });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
});
afterAll(async () => { await new Promise((resolve) => node.close(resolve)); });

describe('withDevnetContract (CHAIN=devnet without USDT_CONTRACT)', () => {
  it('a node that answers but is no devnet is a ConfigError naming CHAIN, not mainnet\'s contract', async () => {
    const error = await withDevnetContract(loadConfig({ TRON_FULL_HOST: url }, { mode: 'dev' })).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('CHAIN');
    expect((error as Error).message).toContain(`the node at ${url} is no devnet (it has no /sim/info): set CHAIN=tronweb for a real node`);
  });

  it('a given USDT_CONTRACT, or CHAIN=tronweb, is kept without asking anything', async () => {
    const given = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
    expect((await withDevnetContract(loadConfig({ TRON_FULL_HOST: 'http://127.0.0.1:1', USDT_CONTRACT: given }, { mode: 'dev' }))).usdtContract).toBe(given);
    const tronweb = loadConfig({ CHAIN: 'tronweb', TRON_FULL_HOST: 'http://127.0.0.1:1' }, { mode: 'dev' });
    expect((await withDevnetContract(tronweb)).usdtContract).toBe(MAINNET_USDT_CONTRACT);
  });

  it('an unreachable devnet is waited for, each try told, until the wait is given up (never mainnet\'s contract)', async () => {
    const stop = new AbortController();
    const tries: number[] = [];
    const waiting = withDevnetContract(loadConfig({ TRON_FULL_HOST: 'http://127.0.0.1:1' }, { mode: 'dev' }), {
      retryMs: 10, signal: stop.signal, onWait: ({ attempt }) => { tries.push(attempt); if (attempt === 3) stop.abort(new Error('stopped')); },
    });
    await expect(waiting).rejects.toThrow('stopped');
    expect(tries).toEqual([1, 2, 3]);
  });
});
