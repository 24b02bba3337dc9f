/**
 * Adapter-only: nodes that misbehave in ways the devnet does not (a proxy answering 5xx or HTML, a node that never
 * answers, a `{"Error": …}` reply). A scripted node:http server stands in for the node; the contract suite covers
 * everything a well-behaved node does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InfrastructureError, type ErrorCode } from '../../core/domain/errors.js';
import { TronWebChainGateway } from './tronweb-chain-gateway.js';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const HOLDER = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';

type Script = (path: string) => { status: number; body: string } | 'hang';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function nodeThat(script: Script): Promise<TronWebChainGateway> {
  server = createServer((req, res) => {
    req.resume();
    const reply = script(req.url ?? '/');
    if (reply === 'hang') return;
    res.writeHead(reply.status, { 'content-type': reply.body.startsWith('{') ? 'application/json' : 'text/html' });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new TronWebChainGateway({ fullHost: `http://127.0.0.1:${port}`, usdtContract: USDT, timeoutMs: 300 });
}

async function expectPortError(p: Promise<unknown>, code: ErrorCode, transient: boolean): Promise<InfrastructureError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(InfrastructureError);
  expect(e).toMatchObject({ code, transient, status: 502 });
  return e as InfrastructureError;
}

const signed = {
  txid: 'a'.repeat(64),
  signedJson: '{}',
  expiresAt: 0,
};

describe('TronWebChainGateway against a misbehaving node', () => {
  it('HTTP 502 from a proxy: reads, balance reads and broadcast-side reads fail transiently', async () => {
    const g = await nodeThat(() => ({ status: 502, body: '<html>Bad Gateway</html>' }));
    await expectPortError(g.getTrxBalance(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', true);
    await expectPortError(g.getResources(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', true);
    await expectPortError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
    await expectPortError(g.getTransaction('b'.repeat(64)), 'CHAIN-NODE-UNAVAILABLE', true);
    await expectPortError(g.energyPerStakedSun(), 'CHAIN-NODE-UNAVAILABLE', true);
  });

  it('a node that never answers times out as a transient failure', async () => {
    const g = await nodeThat(() => 'hang');
    const e = await expectPortError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
    expect(e.message).toMatch(/^head: /);
    await expectPortError(g.accountExists(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', true);
  });

  it('a 200 that is not the node API (an HTML page) is a non-transient failure, not a zero balance', async () => {
    const g = await nodeThat(() => ({ status: 200, body: '<html>captive portal</html>' }));
    await expectPortError(g.getTrxBalance(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', false);
    await expectPortError(g.head(), 'CHAIN-NODE-UNAVAILABLE', false);
  });

  it('an {"Error": …} reply is a refusal carrying the node\'s words', async () => {
    const g = await nodeThat(() => ({ status: 200, body: JSON.stringify({ Error: 'class java.lang.IllegalArgumentException : Invalid address' }) }));
    const e = await expectPortError(g.getTrxBalance(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', false);
    expect(e.message).toContain('Invalid address');
  });

  it('a corrupted write-ahead record is refused before anything is sent', async () => {
    let requests = 0;
    const g = await nodeThat(() => (requests++, { status: 200, body: '{}' }));
    await expectPortError(g.broadcast({ ...signed, signedJson: 'not json' }), 'CHAIN-BROADCAST-FAILED', false);
    await expectPortError(g.broadcast(signed), 'CHAIN-BROADCAST-FAILED', false);
    expect(requests).toBe(0);
  });
});
