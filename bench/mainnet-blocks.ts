/**
 * A bench fixture: a loopback HTTP server answering the few java-tron endpoints the scanner reads, with mainnet-sized
 * blocks (300 transactions each, in java-tron's JSON) that pay a fixed set of active addresses now and then. The
 * devnet cannot produce thousands of such blocks quickly (every transaction is signed and executed); the scanner's
 * reading and matching cost per block is what is measured, so the blocks only need the real shapes and sizes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronWeb } from 'tronweb';

/** A base58 address made from a number (valid checksum, distinct per number and namespace). */
export function syntheticAddress(namespace: number, n: number): string {
  return TronWeb.address.fromHex(`41${namespace.toString(16).padStart(8, '0')}${n.toString(16).padStart(32, '0')}`);
}

const hex41 = (address: string): string => TronWeb.address.toHex(address).toLowerCase();
const blockId = (n: number): string => n.toString(16).padStart(16, '0') + 'c0ffee'.repeat(8);

/** The fixture: blocks 1..tip exist; each pays `perBlock` of the active addresses among 300 transfers. */
export class MainnetBlocks {
  tip = 0;
  private server: Server | undefined;
  private readonly bodies: { txs: string; infos: string }[] = [];

  constructor(active: readonly string[], perBlock = 2, transactions = 300) {
    let seed = 7;
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    // 64 distinct bodies, reused with each block's own header: parsing cost is per transaction, not per body.
    for (let b = 0; b < 64; b += 1) {
      const txs: string[] = [];
      const infos: string[] = [];
      for (let t = 0; t < transactions; t += 1) {
        const txID = `${b.toString(16).padStart(4, '0')}${t.toString(16).padStart(4, '0')}${'ab'.repeat(28)}`;
        const owner = hex41(syntheticAddress(9, next() % 1_000_000));
        const to = t < perBlock ? hex41(active[next() % active.length]!) : hex41(syntheticAddress(9, next() % 1_000_000));
        txs.push(JSON.stringify({
          ret: [{ contractRet: 'SUCCESS' }], signature: ['00'.repeat(65)], txID,
          raw_data: { contract: [{ parameter: { value: { amount: 1_000 + t, owner_address: owner, to_address: to }, type_url: 'type.googleapis.com/protocol.TransferContract' }, type: 'TransferContract' }], ref_block_bytes: '0000', ref_block_hash: '00'.repeat(8), expiration: 0, timestamp: 0 },
          raw_data_hex: '0a'.repeat(120),
        }));
        infos.push(JSON.stringify({ id: txID, blockNumber: 0, blockTimeStamp: 0, contractResult: [''], receipt: { net_usage: 268 } }));
      }
      this.bodies.push({ txs: txs.join(','), infos: infos.join(',') });
    }
  }

  /** Starts serving on a free loopback port; returns the base URL. */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {};
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(this.answer(req.url ?? '', body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(path: string, body: Record<string, unknown>): string {
    const endpoint = path.split('/').pop();
    if (endpoint === 'getnowblock') return this.block(this.tip);
    if (endpoint === 'getblockbynum') return Number(body['num']) <= this.tip ? this.block(Number(body['num'])) : '{}';
    if (endpoint === 'gettransactioninfobyblocknum') return `[${this.bodies[Number(body['num']) % 64]!.infos}]`;
    if (endpoint === 'getaccount') return '{"balance":0}';
    if (endpoint === 'triggerconstantcontract') return `{"result":{"result":true},"constant_result":["${'0'.repeat(64)}"]}`;
    return '{}';
  }

  private block(n: number): string {
    const header = { raw_data: { number: n, txTrieRoot: '00'.repeat(32), witness_address: '41'.padEnd(42, '0'), parentHash: blockId(n - 1), version: 31, timestamp: n * 3_000 }, witness_signature: '00'.repeat(65) };
    return `{"blockID":"${blockId(n)}","block_header":${JSON.stringify(header)},"transactions":[${this.bodies[n % 64]!.txs}]}`;
  }
}
