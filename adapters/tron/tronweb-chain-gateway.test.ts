/**
 * Adapter-only: nodes that misbehave in ways the devnet does not (a proxy answering HTML, a node that answers with
 * no block, a garbled broadcast reply), and exact wire checks (which block a built transaction references, what a
 * dry run that reverts turns into). A scripted node:http server stands in for the node; the contract suite covers
 * everything a well-behaved node and the hostile devnet do.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainError, DomainError, type ErrorCode } from '../../core/domain/errors.js';
import { TronWebChainGateway, type TronWebChainGatewayOptions } from './tronweb-chain-gateway.js';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const HOLDER = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';

type Reply = { status: number; body: string; headers?: Record<string, string> } | 'hang' | 'reset';
type Script = (path: string, body: Record<string, unknown>) => Reply;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function serve(script: Script): Promise<string> {
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const reply = script(req.url ?? '/', body);
      if (reply === 'hang') return;
      if (reply === 'reset') return void req.socket.destroy();
      res.writeHead(reply.status, { 'content-type': reply.body.startsWith('{') ? 'application/json' : 'text/html', ...reply.headers });
      res.end(reply.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function nodeThat(script: Script, options: Partial<TronWebChainGatewayOptions> = {}): Promise<TronWebChainGateway> {
  return new TronWebChainGateway({ fullHost: await serve(script), usdtContract: USDT, timeoutMs: 300, ...options });
}

async function expectPortError(p: Promise<unknown>, code: ErrorCode, transient: boolean): Promise<ChainError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(ChainError);
  expect(e).toMatchObject({ code, transient });
  return e as ChainError;
}

const signed = {
  txid: 'a'.repeat(64),
  signedJson: '{}',
  expiresAt: 0,
};

const ok = (body: unknown): Reply => ({ status: 200, body: JSON.stringify(body) });
const blockJson = (number: number, timestamp: number) => ({
  blockID: number.toString(16).padStart(16, '0') + `${number}`.padStart(16, '7') + 'c'.repeat(32),
  block_header: { raw_data: { number, timestamp } },
});

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

describe('TronWebChainGateway: over-quota and lost replies (wire-exact)', () => {
  it('403 and 429 are transient with the Retry-After of the reply; a 200 quota body is transient too', async () => {
    let reply: Reply = { status: 403, body: JSON.stringify({ Error: 'Exceed the user daily usage (100000), the maximum query frequency is 1 time per second' }),
      headers: { 'retry-after': '12' } };
    const g = await nodeThat(() => reply);
    const e403 = await expectPortError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
    expect(e403).toMatchObject({ retryAfterMs: 12_000, nodeCode: 'HTTP_403' });
    expect(e403.message).toContain('Exceed the user daily usage');
    reply = { status: 429, body: '{}', headers: { 'retry-after': '3' } };
    expect(await expectPortError(g.getTrxBalance(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', true)).toMatchObject({ retryAfterMs: 3_000, nodeCode: 'HTTP_429' });
    reply = ok({ Error: 'request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s' });
    expect(await expectPortError(g.energyPerStakedSun(), 'CHAIN-NODE-UNAVAILABLE', true)).toMatchObject({ retryAfterMs: 5_000, nodeCode: 'RATE_LIMITED' });
    await expectPortError(g.getTransaction('b'.repeat(64)), 'CHAIN-NODE-UNAVAILABLE', true);
  });

  it('a node that answers `{}` for the head (still syncing) is a transient ChainError', async () => {
    const g = await nodeThat(() => ok({}));
    await expectPortError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
    await expectPortError(g.solidifiedHead(), 'CHAIN-NODE-UNAVAILABLE', true);
  });

  it('broadcast: a lost, garbled or empty reply is transient (it may have landed); refusals keep their node code', async () => {
    let broadcastReply: Reply = ok({});
    const g = await nodeThat((path) => {
      if (path.endsWith('/wallet/getblock')) return ok(blockJson(100, 1_700_000_000_000));
      if (path.endsWith('/walletsolidity/getnowblock')) return ok(blockJson(81, 1_699_999_943_000));
      return broadcastReply;
    }, { timeoutMs: 2_000 });
    const a = await g.createAccount();
    const b = await g.createAccount();
    const tx = await g.prepare({ address: a.address, privateKey: async () => a.privateKey }, { kind: 'transfer-trx', to: b.address, amountSun: 1n });
    const cases: Array<[Reply, ErrorCode, boolean, string | null]> = [
      ['reset', 'CHAIN-NODE-UNAVAILABLE', true, null],
      [{ status: 200, body: '<html>gateway</html>' }, 'CHAIN-NODE-UNAVAILABLE', true, null],
      [ok({}), 'CHAIN-NODE-UNAVAILABLE', true, null],
      [{ status: 502, body: '<html>Bad Gateway</html>' }, 'CHAIN-NODE-UNAVAILABLE', true, 'HTTP_502'],
      [ok({ Error: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s' }), 'CHAIN-NODE-UNAVAILABLE', true, 'RATE_LIMITED'],
      [ok({ code: 'SERVER_BUSY', txid: tx.txid, message: Buffer.from('Server busy').toString('hex') }), 'CHAIN-BROADCAST-FAILED', true, 'SERVER_BUSY'],
      [ok({ code: 'TAPOS_ERROR', txid: tx.txid, message: Buffer.from('Tapos check error.').toString('hex') }), 'CHAIN-BROADCAST-FAILED', false, 'TAPOS_ERROR'],
      [ok({ code: 'TRANSACTION_EXPIRATION_ERROR', message: 'Transaction expired' }), 'CHAIN-BROADCAST-FAILED', false, 'TRANSACTION_EXPIRATION_ERROR'],
      [ok({ Error: 'class java.lang.NullPointerException : null' }), 'CHAIN-BROADCAST-FAILED', false, null],
    ];
    for (const [reply, code, transient, nodeCode] of cases) {
      broadcastReply = reply;
      const e = await expectPortError(g.broadcast(tx), code, transient);
      expect(e.nodeCode, JSON.stringify(reply)).toBe(nodeCode);
    }
    broadcastReply = ok({ code: 'DUP_TRANSACTION_ERROR', message: Buffer.from('Dup transaction.').toString('hex') });
    await g.broadcast(tx);
    broadcastReply = ok({ result: true, txid: tx.txid });
    await g.broadcast(tx);
  });
});

describe('TronWebChainGateway.prepare: the reference block (wire-exact)', () => {
  const HEAD = 1_000_005;
  const HEAD_TIME = 1_700_000_000_000;
  const refOf = (json: string) => {
    return (JSON.parse(json) as { raw_data: { ref_block_bytes: string; ref_block_hash: string; expiration: number; timestamp: number } }).raw_data;
  };
  const signerOf = async (g: TronWebChainGateway) => {
    const a = await g.createAccount();
    return { signer: { address: a.address, privateKey: async () => a.privateKey }, to: (await g.createAccount()).address };
  };

  it('references the solidified block of the solidity endpoint (java-tron: trx.reference.block = solid) and expires 60 s after the head', async () => {
    const seen: string[] = [];
    const solidityHost = await serve((path) => (seen.push(`solidity ${path}`),
      path === '/walletsolidity/getnowblock' ? ok(blockJson(HEAD - 19, HEAD_TIME - 57_000)) : { status: 404, body: '<html>404</html>' }));
    // Like a self-hosted java-tron's full port: no /walletsolidity here.
    const fullHost = await serve((path) => (seen.push(`full ${path}`),
      path === '/wallet/getblock' ? ok(blockJson(HEAD, HEAD_TIME)) : { status: 404, body: '<html>404</html>' }));
    const g = new TronWebChainGateway({ fullHost, solidityHost, usdtContract: USDT, timeoutMs: 2_000 });
    const { signer, to } = await signerOf(g);
    const tx = await g.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n });
    const raw = refOf(tx.signedJson);
    expect(raw.ref_block_bytes).toBe(((HEAD - 19) & 0xffff).toString(16).padStart(4, '0'));
    expect(raw.ref_block_hash).toBe(blockJson(HEAD - 19, 0).blockID.slice(16, 32));
    expect(raw.expiration).toBe(HEAD_TIME + 60_000);
    expect(tx.expiresAt).toBe(HEAD_TIME + 60_000);
    expect(raw.timestamp).toBeGreaterThanOrEqual(HEAD_TIME);
    expect(seen.sort()).toEqual(['full /wallet/getblock', 'solidity /walletsolidity/getnowblock']);
    expect(await g.solidifiedHead()).toEqual({ number: HEAD - 19, timestamp: HEAD_TIME - 57_000 });
    // The same node without TRON_SOLIDITY_HOST: a configuration error, reported as such and not retried forever.
    const fullOnly = new TronWebChainGateway({ fullHost, usdtContract: USDT, timeoutMs: 2_000 });
    const e = await expectPortError(fullOnly.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n }), 'CHAIN-TRANSACTION-FAILED', false);
    expect(e.nodeCode).toBe('HTTP_404');
  });

  it('a solidified block the scanner read within referenceReuseMs is referenced without a read; an older one is not', async () => {
    let now = HEAD_TIME;
    const solidReads: number[] = [];
    let seen: { number: number; id: string; at: number } | null = { number: HEAD - 25, id: blockJson(HEAD - 25, 0).blockID, at: HEAD_TIME - 2_000 };
    const g = await nodeThat((path) => {
      if (path === '/wallet/getblock') return ok(blockJson(HEAD, HEAD_TIME));
      if (path === '/walletsolidity/getnowblock') return solidReads.push(now), ok(blockJson(HEAD - 19, HEAD_TIME - 57_000));
      return { status: 404, body: '<html>404</html>' };
    }, { now: () => now, referenceReuseMs: 30_000, solidified: () => seen });
    const { signer, to } = await signerOf(g);
    const build = async () => refOf((await g.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n })).signedJson);
    // Read by the scanner 2 s ago: referenced as read, no walletsolidity call.
    let raw = await build();
    expect(raw.ref_block_bytes).toBe(((HEAD - 25) & 0xffff).toString(16).padStart(4, '0'));
    expect(raw.ref_block_hash).toBe(blockJson(HEAD - 25, 0).blockID.slice(16, 32));
    expect(solidReads).toEqual([]);
    // 30 s after the scanner's read: too old (the window findInSolidified reads allows 10 blocks), read again.
    now = HEAD_TIME + 28_000;
    raw = await build();
    expect(solidReads).toEqual([HEAD_TIME + 28_000]);
    expect(raw.ref_block_hash).toBe(blockJson(HEAD - 19, 0).blockID.slice(16, 32));
    // The newer of the build's own read and the scanner's: an older block the scanner reads later is not taken.
    seen = { number: HEAD - 30, id: blockJson(HEAD - 30, 0).blockID, at: now };
    expect((await build()).ref_block_hash).toBe(blockJson(HEAD - 19, 0).blockID.slice(16, 32));
    seen = { number: HEAD - 18, id: blockJson(HEAD - 18, 0).blockID, at: now };
    expect((await build()).ref_block_hash).toBe(blockJson(HEAD - 18, 0).blockID.slice(16, 32));
    expect(solidReads).toHaveLength(1);
    // A time ahead of the clock (another clock, a step back) is not trusted.
    seen = { number: HEAD - 17, id: blockJson(HEAD - 17, 0).blockID, at: now + 1 };
    now += 30_000;
    seen = { ...seen, at: now + 1 };
    expect((await build()).ref_block_hash).toBe(blockJson(HEAD - 19, 0).blockID.slice(16, 32));
    expect(solidReads).toHaveLength(2);
    // The scanner's block up to 30 below this head is referenced; one further below (the scanner's node far behind:
    // findInSolidified's window would not reach the expiration) is not, and the build reads its own.
    now += 30_000;
    seen = { number: HEAD - 30, id: blockJson(HEAD - 30, 0).blockID, at: now };
    expect((await build()).ref_block_hash).toBe(blockJson(HEAD - 30, 0).blockID.slice(16, 32));
    seen = { number: HEAD - 40, id: blockJson(HEAD - 40, 0).blockID, at: now };
    now += 30_000;
    seen = { ...seen, at: now };
    expect((await build()).ref_block_hash).toBe(blockJson(HEAD - 19, 0).blockID.slice(16, 32));
    expect(solidReads).toHaveLength(3);
  });

  it('a solidity endpoint ahead of the full node it broadcasts to: the full node\'s head is referenced', async () => {
    const g = await nodeThat((path) => ok(path === '/wallet/getblock' ? blockJson(HEAD, HEAD_TIME) : blockJson(HEAD + 2, HEAD_TIME + 6_000)));
    const { signer, to } = await signerOf(g);
    const raw = refOf((await g.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n })).signedJson);
    expect(raw.ref_block_hash).toBe(blockJson(HEAD, 0).blockID.slice(16, 32));
  });

  it('{ headMinus: n } references the block n below the head, read by number from the full node', async () => {
    const asked: unknown[] = [];
    const g = await nodeThat((path, body) => {
      if (path === '/wallet/getblock') return ok(blockJson(HEAD, HEAD_TIME));
      if (path === '/wallet/getblockbynum') return asked.push(body['num']), ok(blockJson(Number(body['num']), HEAD_TIME - 30_000));
      return { status: 404, body: '<html>404</html>' };
    }, { referenceBlock: { headMinus: 10 }, expirationMs: 120_000 });
    const { signer, to } = await signerOf(g);
    const raw = refOf((await g.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n })).signedJson);
    expect(asked).toEqual([HEAD - 10]);
    expect(raw.ref_block_hash).toBe(blockJson(HEAD - 10, 0).blockID.slice(16, 32));
    expect(raw.expiration).toBe(HEAD_TIME + 120_000);
    expect(() => new TronWebChainGateway({ fullHost: 'http://127.0.0.1:1', usdtContract: USDT, referenceBlock: { headMinus: -1 } }))
      .toThrow(DomainError);
  });

  it('a solidity endpoint over its quota makes prepare fail transiently, with its Retry-After', async () => {
    const g = await nodeThat((path) => (path === '/wallet/getblock' ? ok(blockJson(HEAD, HEAD_TIME))
      : { status: 429, body: '{}', headers: { 'retry-after': '4' } }));
    const { signer, to } = await signerOf(g);
    const e = await expectPortError(g.prepare(signer, { kind: 'transfer-trx', to, amountSun: 1n }), 'CHAIN-NODE-UNAVAILABLE', true);
    expect(e.retryAfterMs).toBe(4_000);
  });
});

describe('TronWebChainGateway.estimateTrc20TransferEnergy: a dry run that reverts (wire-exact)', () => {
  const revert = ok({
    result: { result: true, message: Buffer.from('REVERT opcode executed').toString('hex') },
    energy_used: 551,
    constant_result: [''],
    transaction: { ret: [{ ret: 'FAILED' }] },
  });
  /** A node whose dry run of `transfer` answers `dryRun` and whose balanceOf answers `held` for the sender, 0 for anyone else. */
  const tokenNode = (dryRun: () => Reply, held: bigint) => nodeThat((path, body) => {
    if (path !== '/wallet/triggerconstantcontract') return { status: 404, body: '<html>404</html>' };
    if (body['function_selector'] === 'transfer(address,uint256)') return dryRun();
    const who = String(body['parameter']).slice(-40);
    const amount = who === String(body['owner_address']).slice(-40) && body['owner_address'] === senderHex ? held : 0n;
    return ok({ result: { result: true }, constant_result: [amount.toString(16).padStart(64, '0')] });
  }, { timeoutMs: 2_000 });
  let senderHex = '';
  const parties = async (g: TronWebChainGateway) => {
    const from = (await g.createAccount()).address;
    const to = (await g.createAccount()).address;
    const { TronWeb } = await import('tronweb');
    senderHex = TronWeb.address.toHex(from).toLowerCase();
    return { from, to };
  };

  it('a revert while the sender holds the amount (blacklisted or paused) is BIZ-TRANSFER-WOULD-REVERT', async () => {
    const g = await tokenNode(() => revert, 1_000n);
    const { from, to } = await parties(g);
    const e = await g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect(e).toMatchObject({ code: 'BIZ-TRANSFER-WOULD-REVERT' });
    expect((e as Error).message).toMatch(/blacklisted address or a paused token/);
    expect((e as Error).message).toContain(from);
  });

  it('a revert because the sender lacks the amount is no verdict: the USDT rule applies (never the revert\'s energy)', async () => {
    const g = await tokenNode(() => revert, 999n);
    const { from, to } = await parties(g);
    expect(await g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n)).toBe(130_285);
  });

  it('a dry run refused by the node falls back to the rule; one over quota or unreachable fails transiently', async () => {
    let dry: Reply = ok({ Error: 'class org.tron.core.exception.ContractValidateException : this node does not support constant' });
    const g = await tokenNode(() => dry, 5_000n);
    const { from, to } = await parties(g);
    expect(await g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n)).toBe(130_285);
    dry = { status: 429, body: '{}', headers: { 'retry-after': '1' } };
    expect(await expectPortError(g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n), 'CHAIN-NODE-UNAVAILABLE', true))
      .toMatchObject({ retryAfterMs: 1_000 });
    dry = 'reset';
    await expectPortError(g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n), 'CHAIN-NODE-UNAVAILABLE', true);
    dry = ok({ result: { result: true }, energy_used: 64_285, transaction: { ret: [{}] } });
    expect(await g.estimateTrc20TransferEnergy(from, to, USDT, 1_000n)).toBe(64_285);
  });
});

describe('TronWebChainGateway.findInSolidified across fallback nodes (wire-exact)', () => {
  /** A chain of solidified blocks 100..130, each the child of the one before; `salt` makes a different chain. */
  const chain = (salt: string) => {
    const id = (n: number): string => n.toString(16).padStart(16, '0') + salt.repeat(16).slice(0, 16) + 'c'.repeat(32);
    const block = (n: number) => ({
      blockID: id(n), block_header: { raw_data: { number: n, timestamp: 1_000_000 + n * 3_000, parentHash: id(n - 1) } }, transactions: [],
    });
    return { id, block };
  };
  const ours = chain('a');
  // Reference block 100, expiring before block 110's time.
  const tx = {
    txid: 'f'.repeat(64), expiresAt: 1_000_000 + 109 * 3_000 + 1,
    signedJson: JSON.stringify({ raw_data: { ref_block_bytes: (100).toString(16).padStart(4, '0'), ref_block_hash: ours.id(100).slice(16, 32), expiration: 1_000_000 + 109 * 3_000 + 1 } }),
  };

  /** The first node: serves the solidified head and the reference block, then is down for block reads past it. */
  const primary: Script = (path, body) => {
    if (path.endsWith('/getnowblock')) return ok(ours.block(130));
    if (path.endsWith('/getblockbynum') && body['num'] === 100) return ok(ours.block(100));
    return { status: 503, body: '<html>503 Service Temporarily Unavailable</html>' };
  };
  const fallbackWith = (blocks: ReturnType<typeof chain>): Script => (path, body) => {
    if (path.endsWith('/getnowblock')) return ok(blocks.block(130));
    if (path.endsWith('/getblockbynum')) return ok(blocks.block(Number(body['num'])));
    return { status: 404, body: '{}' };
  };

  it('blocks from a fallback on the same chain complete the proof: absent', async () => {
    const g = await nodeThat(primary, { fallbackNodes: [{ fullHost: await serve(fallbackWith(ours)) }] });
    expect(await g.findInSolidified(tx)).toBe('absent');
  });

  it('blocks from a fallback on another chain (a misconfigured entry) prove nothing: unknown', async () => {
    const g = await nodeThat(primary, { fallbackNodes: [{ fullHost: await serve(fallbackWith(chain('b'))) }] });
    expect(await g.findInSolidified(tx)).toBe('unknown');
  });

  it('a proof that a failed read interrupted resumes where it stopped: through a node failing every 5th block read, it completes', async () => {
    // Read from scratch each time, a 10-block window through such a node never completes (4 reads, then a failure):
    // a transaction that never landed would be re-sent for ever instead of being proven dead.
    let reads = 0;
    const flaky: Script = (path, body) => {
      if (path.endsWith('/getnowblock')) return ok(ours.block(130));
      if (!path.endsWith('/getblockbynum')) return { status: 404, body: '{}' };
      reads += 1;
      return reads % 5 === 0 ? { status: 503, body: 'busy' } : ok(ours.block(Number(body['num'])));
    };
    const g = await nodeThat(flaky);
    const answers: string[] = [];
    for (let attempt = 0; attempt < 6 && answers.at(-1) !== 'absent'; attempt++) {
      answers.push(await g.findInSolidified(tx).catch((e: unknown) => (e as ChainError).code));
    }
    expect(answers).toEqual(['CHAIN-NODE-UNAVAILABLE', 'CHAIN-NODE-UNAVAILABLE', 'absent']);
    // Blocks 100..110 read once each, plus the two failed reads.
    expect(reads).toBe(13);
  });

  it('blocks of another chain are not kept: once the fallback is fixed, the proof completes', async () => {
    let fallbackBlocks = chain('b');
    const g = await nodeThat(primary, { fallbackNodes: [{ fullHost: await serve((path, body) => fallbackWith(fallbackBlocks)(path, body)) }] });
    expect(await g.findInSolidified(tx)).toBe('unknown');
    fallbackBlocks = ours;
    expect(await g.findInSolidified(tx)).toBe('absent');
  });
});

describe('TronWebChainGateway: what a fallback node answers after the first node failed (wire-exact)', () => {
  it("a fallback's refusal is not taken as final: the caller sees the first node's failure (transient); its acceptance is", async () => {
    let fallbackBroadcast: Reply = ok({});
    let fallbackRead: Reply = ok({});
    const chainReads = (path: string): Reply | null => {
      if (path.endsWith('/wallet/getblock')) return ok(blockJson(100, 1_700_000_000_000));
      if (path.endsWith('/walletsolidity/getnowblock')) return ok(blockJson(81, 1_699_999_943_000));
      return null;
    };
    const fallback = await serve((path) => chainReads(path) ?? (path.endsWith('/broadcasttransaction') ? fallbackBroadcast : fallbackRead));
    // The first node builds, then fails every other call with a 503 (reads and broadcasts alike).
    const g = await nodeThat((path) => chainReads(path) ?? { status: 503, body: '<html>503</html>' }, { timeoutMs: 2_000, fallbackNodes: [{ fullHost: fallback }] });
    const a = await g.createAccount();
    const b = await g.createAccount();
    const tx = await g.prepare({ address: a.address, privateKey: async () => a.privateKey }, { kind: 'transfer-trx', to: b.address, amountSun: 1n });
    // A fallback behind the funding says the transfer is invalid: not final, the 503 is what counts.
    fallbackBroadcast = ok({ code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('balance is not sufficient').toString('hex') });
    expect(await expectPortError(g.broadcast(tx), 'CHAIN-NODE-UNAVAILABLE', true)).toMatchObject({ nodeCode: 'HTTP_503' });
    fallbackBroadcast = ok({ code: 'DUP_TRANSACTION_ERROR', message: Buffer.from('Dup transaction.').toString('hex') });
    await g.broadcast(tx);
    fallbackBroadcast = ok({ result: true, txid: tx.txid });
    await g.broadcast(tx);
    // Reads: a fallback's error body is not final either (the first node is paused by now, so not asked), its account is.
    fallbackRead = ok({ Error: 'class java.lang.NullPointerException : null' });
    const e = await expectPortError(g.getTrxBalance(HOLDER), 'CHAIN-BALANCE-QUERY-FAILED', true);
    expect(e.message).toContain('not final');
    fallbackRead = ok({ address: HOLDER, balance: 7 });
    expect(await g.getTrxBalance(HOLDER)).toBe(7n);
  });
});
