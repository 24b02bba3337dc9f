import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TronWeb, utils } from 'tronweb';
import { buildIntent, type BlockHeaderRef } from './tron-intents.js';
import { addressOfPrivateKey, signTransaction, transactionConsistent } from './tron-signing.js';

const tw = new TronWeb({ fullHost: 'http://127.0.0.1:1' });
const ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'))
  .filter((k) => BigInt(`0x${k}`) > 0n && BigInt(`0x${k}`) < ORDER);
const header = fc.record({
  ref_block_bytes: fc.uint8Array({ minLength: 2, maxLength: 2 }).map((b) => Buffer.from(b).toString('hex')),
  ref_block_hash: fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => Buffer.from(b).toString('hex')),
  expiration: fc.integer({ min: 1_700_000_060_000, max: 1_800_000_000_000 }),
  timestamp: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_059_999 }),
});
const OTHER = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';

/** A TRX transfer built for the owner of a fixed key, unsigned. */
async function fixedTransfer() {
  const k = '2'.repeat(64);
  const owner = TronWeb.address.fromPrivateKey(k) as string;
  const h = { ref_block_bytes: '0a0b', ref_block_hash: '0102030405060708', expiration: 1_700_000_060_000, timestamp: 1_700_000_000_000 };
  return { k, owner, unsigned: await buildIntent(tw, owner, { kind: 'transfer-trx', to: OTHER, amountSun: 5n }, h, 100_000_000n) };
}

describe('transaction signing (libsecp256k1) is tronweb trx.sign byte for byte', () => {
  it('same signed transaction for random keys, intents and headers', async () => {
    await fc.assert(fc.asyncProperty(key, header, fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.constantFrom('transfer-trx', 'delegate'),
      async (k, h: BlockHeaderRef, amount, kind) => {
        const owner = TronWeb.address.fromPrivateKey(k) as string;
        const intent = kind === 'transfer-trx'
          ? { kind, to: OTHER, amountSun: amount } as const
          : { kind, receiver: OTHER, resource: 'ENERGY', amountSun: amount } as const;
        const unsigned = await buildIntent(tw, owner, intent, h, 100_000_000n);
        const expected = await tw.trx.sign(JSON.parse(JSON.stringify(unsigned)), k);
        expect(signTransaction(unsigned, k)).toEqual(expected);
        expect(addressOfPrivateKey(k)).toBe(TronWeb.address.toHex(owner).toLowerCase());
      }), { numRuns: runs(60), seed: 152 });
  });

  it('refuses a key that is not the owner\'s, a corrupted txid, an invalid key, a signed transaction', async () => {
    const { k, owner, unsigned } = await fixedTransfer();
    expect(() => signTransaction(unsigned, '3'.repeat(64))).toThrow(/does not match/);
    expect(() => signTransaction({ ...unsigned, txID: 'ab'.repeat(32) }, k)).toThrow(/Invalid transaction/);
    expect(() => signTransaction(unsigned, '0'.repeat(64))).toThrow();
    expect(() => signTransaction(unsigned, 'zz')).toThrow(/invalid private key/);
    expect(() => signTransaction(signTransaction(unsigned, k), k)).toThrow(/already signed/);
    // The signature recovers to the owner (tronweb's own check).
    const signed = signTransaction(unsigned, k);
    expect(utils.crypto.ecRecover(signed.txID, signed.signature[0]!).toLowerCase()).toBe(TronWeb.address.toHex(owner).toLowerCase());
  });

  it('transactionConsistent answers as tronweb\'s txCheck, on transactions as built and with one character of raw_data_hex, txID or raw_data changed', async () => {
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    await fc.assert(fc.asyncProperty(key, header, fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.nat(), fc.constantFrom('none', 'hex', 'txid', 'expiration'),
      async (k, h: BlockHeaderRef, amount, at, change) => {
        const unsigned = await buildIntent(tw, TronWeb.address.fromPrivateKey(k) as string, { kind: 'transfer-trx', to: OTHER, amountSun: amount }, h, 100_000_000n);
        const tx = JSON.parse(JSON.stringify(unsigned)) as typeof unsigned;
        if (change === 'hex') tx.raw_data_hex = flip(tx.raw_data_hex, at % tx.raw_data_hex.length);
        if (change === 'txid') tx.txID = flip(tx.txID, at % tx.txID.length);
        if (change === 'expiration') tx.raw_data.expiration += 1;
        expect(transactionConsistent(tx)).toBe(utils.transaction.txCheck(tx));
        expect(transactionConsistent(tx)).toBe(change === 'none');
      }), { numRuns: runs(60), seed: 153 });
  });

  it('a key address given by the caller stands for the derivation: the owner must be it', async () => {
    const { k, unsigned } = await fixedTransfer();
    expect(signTransaction(unsigned, k, addressOfPrivateKey(k))).toEqual(signTransaction(unsigned, k));
    expect(() => signTransaction(unsigned, k, addressOfPrivateKey('3'.repeat(64)))).toThrow(/does not match/);
  });
});
