import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTER_ENERGY } from './trx-router.js';
import type { Devnet } from './index.js';
import { pay, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

const CALL_NOTE = Buffer.from('call').toString('hex');

describe('contract-internal TRX transfers (the built-in router)', () => {
  let devnet: Devnet;
  let payer: Wallet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    payer = wallet(devnet, 'router-payer');
    devnet.fund(payer.address, trx(1_000));
    devnet.mine(1);
  });
  afterAll(() => devnet.close());

  const info = (txid: string) => payer.tw.trx.getUnconfirmedTransactionInfo(txid);
  const balance = (address: string) => payer.tw.trx.getUnconfirmedBalance(address);

  it('forward(address) pays the call value to the receiver as an internal transaction, reported as java-tron does', async () => {
    const to = wallet(devnet, 'router-to').address;
    const before = await balance(payer.address);
    const txid = pay.viaRouter(devnet, payer.key, to, trx(3));
    devnet.mine(1);
    const i = await info(txid);
    expect(i.receipt.result).toBe('SUCCESS');
    // The receiver did not exist: the CALL with value creates it (TVM's new-account energy).
    expect(i.receipt.energy_usage_total).toBe(ROUTER_ENERGY.base + ROUTER_ENERGY.perPayment + ROUTER_ENERGY.newAccount);
    expect(i.internal_transactions).toEqual([{
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      caller_address: devnet.chain.router,
      transferTo_address: wallet(devnet, 'router-to').hex,
      callValueInfo: [{ callValue: trx(3) }],
      note: CALL_NOTE,
    }]);
    expect(await balance(to)).toBe(trx(3));
    expect(await balance(payer.address)).toBe(before - trx(3) - (i.fee as number));
    expect(await balance(devnet.chain.router)).toBe(0);
    // The block's transaction names only the router: a scanner reading transactions alone misses the payment.
    const block = await payer.tw.trx.getBlockByNumber(devnet.info().head_number);
    const contract = block.transactions![0]!.raw_data.contract[0]!;
    expect(contract.type).toBe('TriggerSmartContract');
    expect((contract.parameter.value as { call_value?: number }).call_value).toBe(trx(3));
  });

  it('split(address,address) makes two internal transfers in one transaction; visible=true prints base58', async () => {
    const a = wallet(devnet, 'split-a').address;
    const b = wallet(devnet, 'split-b').address;
    const txid = pay.viaRouter(devnet, payer.key, [a, b], 5);
    devnet.mine(1);
    const reply = await fetch(`${devnet.url}/wallet/gettransactioninfobyblocknum`, { method: 'POST', body: JSON.stringify({ num: devnet.info().head_number, visible: true }) });
    const infos = (await reply.json()) as Array<{ id: string; internal_transactions: Array<{ transferTo_address: string; callValueInfo: Array<{ callValue: number }> }> }>;
    const mine = infos.find((x) => x.id === txid)!;
    expect(mine.internal_transactions.map((t) => [t.transferTo_address, t.callValueInfo[0]!.callValue])).toEqual([[a, 2], [b, 3]]);
    expect(await balance(a)).toBe(2);
    expect(await balance(b)).toBe(3);
  });

  it('a call that runs out of energy moves nothing and marks its internal transactions rejected', async () => {
    const to = wallet(devnet, 'router-oo-energy').address;
    const before = await balance(payer.address);
    const txid = pay.viaRouter(devnet, payer.key, to, trx(1), 1_000_000);
    devnet.mine(1);
    const i = await info(txid);
    expect(i.receipt.result).toBe('OUT_OF_ENERGY');
    expect(i.internal_transactions?.map((t: { rejected?: boolean }) => t.rejected)).toEqual([true]);
    expect(await balance(to)).toBe(0);
    expect(await balance(payer.address)).toBe(before - (i.fee as number));
  });

  it('refuses a zero value and payments to a contract (REVERT, fee charged, nothing moved)', async () => {
    const txid = pay.viaRouter(devnet, payer.key, devnet.usdtAddress, trx(1));
    const zero = pay.viaRouter(devnet, payer.key, wallet(devnet, 'x').address, 0);
    devnet.mine(1);
    for (const id of [txid, zero]) {
      const i = await info(id);
      expect(i.receipt.result).toBe('REVERT');
      expect(i.internal_transactions).toBeUndefined();
    }
  });

  it('answers getcontract and a constant call for the router', async () => {
    const contract = await payer.tw.trx.getContract(devnet.chain.router);
    expect(contract.name).toBe('TrxRouter');
    const dry = await payer.tw.transactionBuilder.triggerConstantContract(devnet.chain.router, 'forward(address)', { callValue: 10 },
      [{ type: 'address', value: wallet(devnet, 'router-to').address }], payer.address);
    expect(dry.result.result).toBe(true);
    expect(dry.energy_used).toBe(ROUTER_ENERGY.base + ROUTER_ENERGY.perPayment);
  });
});
