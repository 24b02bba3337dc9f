import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utils } from 'tronweb';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

const utf8 = (hex: unknown): string => Buffer.from(String(hex), 'hex').toString('utf8');

describe('broadcast validity checks and fault injection (real tronweb)', () => {
  let devnet: Devnet;
  let a: Wallet;
  let b: Wallet;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const signedTransfer = async (amount: number): Promise<any> => a.tw.trx.sign(await a.tw.transactionBuilder.sendTrx(b.address, amount, a.address));
  const post = async (path: string, body: unknown) =>
    (await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    a = wallet(devnet, 'a');
    b = wallet(devnet, 'b');
    devnet.fund(a.address, trx(1_000));
    devnet.fund(b.address, trx(1));
  });
  afterAll(() => devnet.close());

  it('SIGERROR for a tampered transaction (the node re-derives the txID from raw_data)', async () => {
    const tx = await signedTransfer(trx(1));
    tx.raw_data.contract[0].parameter.value.amount = trx(900);
    const res = await a.tw.trx.sendRawTransaction(tx);
    expect(res.code).toBe('SIGERROR');
    expect(utf8(res.message)).toMatch(/^Validate signature error: [0-9a-f]+ is signed by T\w+ but it is not contained of permission\.$/);
    const wrongKey = utils.crypto.signTransaction(wallet(devnet, 'mallory').key, await a.tw.transactionBuilder.sendTrx(b.address, 7, a.address));
    expect((await a.tw.trx.sendRawTransaction(wrongKey)).code).toBe('SIGERROR');
    expect(await a.tw.trx.getUnconfirmedBalance(b.address)).toBe(trx(1));
  });

  it('DUP_TRANSACTION_ERROR for a replay, pending or included', async () => {
    const tx = await signedTransfer(trx(2));
    expect((await a.tw.trx.sendRawTransaction(tx)).result).toBe(true);
    const again = await a.tw.trx.sendRawTransaction(tx);
    expect(again.code).toBe('DUP_TRANSACTION_ERROR');
    devnet.mine(1);
    expect((await a.tw.trx.sendRawTransaction(tx)).code).toBe('DUP_TRANSACTION_ERROR');
    expect(await a.tw.trx.getUnconfirmedBalance(b.address)).toBe(trx(3));
  });

  it('TRANSACTION_EXPIRATION_ERROR once the head passes expiration (60 s after the reference block)', async () => {
    const tx = await signedTransfer(trx(3));
    devnet.mine(20);
    const res = await a.tw.trx.sendRawTransaction(tx);
    expect(res.code).toBe('TRANSACTION_EXPIRATION_ERROR');
    expect(utf8(res.message)).toBe('Transaction expired');
  });

  it('TAPOS_ERROR for a reference block that is not on the chain', async () => {
    const tx = await a.tw.transactionBuilder.sendTrx(b.address, 5, a.address, {
      blockHeader: { ref_block_bytes: (devnet.chain.head.number & 0xffff).toString(16).padStart(4, '0'), ref_block_hash: 'deadbeefdeadbeef', expiration: devnet.chain.now + 60_000, timestamp: devnet.chain.now },
    } as never);
    const res = await a.tw.trx.sendRawTransaction(await a.tw.trx.sign(tx));
    expect(res.code).toBe('TAPOS_ERROR');
  });

  it('accepts broadcasthex (a full signed Transaction protobuf)', async () => {
    const tx = await signedTransfer(trx(4));
    const pb = utils.transaction.txJsonToPb(tx);
    pb.addSignature(Uint8Array.from(Buffer.from(tx.signature[0], 'hex')));
    const res = await a.tw.trx.sendHexTransaction(Buffer.from(pb.serializeBinary()).toString('hex'));
    expect(res.result).toBe(true);
    expect(res.txid).toBe(tx.txID);
  });

  it('honours visible=true and answers unknown paths with 404 JSON', async () => {
    const acct = await post('/wallet/getaccount', { address: a.address, visible: true });
    expect(acct['address']).toBe(a.address);
    const hexAcct = await post('/wallet/getaccount', { address: a.hex });
    expect(hexAcct['address']).toBe(a.hex);
    const r = await fetch(devnet.url + '/wallet/nosuchthing');
    expect(r.status).toBe(404);
    expect(await r.json()).toHaveProperty('Error');
    const get = (await (await fetch(`${devnet.url}/wallet/getaccount?address=${a.address}&visible=true`)).json()) as { address: string };
    expect(get.address).toBe(a.address);
  });

  it('fault injection: reject_broadcast, drop_next_transactions, stall_solidification, node_down', async () => {
    devnet.setFaults({ reject_broadcast: 'SERVER_BUSY' });
    expect((await a.tw.trx.sendRawTransaction(await signedTransfer(trx(5)))).code).toBe('SERVER_BUSY');
    devnet.setFaults({ reject_broadcast: null, drop_next_transactions: 1 });
    const dropped = await signedTransfer(trx(6));
    expect((await a.tw.trx.sendRawTransaction(dropped)).result).toBe(true);
    devnet.mine(1);
    expect(await a.tw.trx.getUnconfirmedTransactionInfo(dropped.txID)).toEqual({});
    const solid = devnet.info().solidified_number;
    devnet.setFaults({ stall_solidification: true });
    devnet.mine(25);
    expect(devnet.info().solidified_number).toBe(solid);
    devnet.setFaults({ stall_solidification: false });
    expect(devnet.info().solidified_number).toBe(devnet.info().head_number - 19);
    devnet.setFaults({ node_down: true });
    await expect(a.tw.trx.getUnconfirmedBalance(a.address)).rejects.toThrow();
    const info = (await (await fetch(devnet.url + '/sim/info')).json()) as { head_number: number };
    expect(info.head_number).toBe(devnet.info().head_number);
    devnet.setFaults({ node_down: false });
    expect(await a.tw.trx.getUnconfirmedBalance(a.address)).toBeGreaterThan(0);
  });

  it('HTTP controls mirror the in-process API', async () => {
    const c = wallet(devnet, 'http-funded');
    await post('/sim/fund', { address: c.hex, amount_sun: trx(3) });
    await post('/sim/fund_token', { address: c.address, amount: 5 });
    const mined = await post('/sim/mine', { blocks: 2 });
    expect(mined['head_number']).toBe(devnet.chain.head.number);
    expect(await a.tw.trx.getUnconfirmedBalance(c.address)).toBe(trx(3));
    const before = devnet.chain.now;
    await post('/sim/advance', { ms: 30_000 });
    expect(devnet.chain.now).toBe(before + 30_000);
    const p = await post('/sim/params', { energy_fee: 210 });
    expect(p['energyFee']).toBe(210);
    // A price moves at the next maintenance, as a proposal does.
    expect((await a.tw.trx.getChainParameters()).find((x) => x.key === 'getEnergyFee')?.value).toBe(100);
    const at = devnet.chain.nextMaintenanceTime;
    await post('/sim/maintenance', {});
    expect(await a.tw.trx.getEnergyPrices()).toBe(`0:100,${at}:210`);
    const params = await a.tw.trx.getChainParameters();
    expect(params.find((x) => x.key === 'getEnergyFee')?.value).toBe(210);
    expect((await post('/sim/faults', { slow_ms: 0 }))['node_down']).toBe(false);
  });
});
