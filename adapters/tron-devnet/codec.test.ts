import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utils } from 'tronweb';
import { abiDecode, abiDecodeTronweb, recoverFast, recoverSigner, signTxId, txByteSize, txIdentity, txIdentityAndSize, type RawData } from './codec.js';

/** tronweb's own answers, the reference: ecRecover (ethers + noble), null where it throws. */
function tronwebRecover(txID: string, signature: string): string | null {
  try {
    return utils.crypto.ecRecover(txID, signature).toLowerCase();
  } catch {
    return null;
  }
}
const tronwebSign = (txID: string, key: string): string =>
  utils.crypto.ECKeySign(utils.code.hexStr2byteArray(txID), utils.code.hexStr2byteArray(key)).toLowerCase();

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
// A private key in [1, n-1]: all-zero and overflowing draws are practically impossible but excluded anyway.
const key = hex32.filter((k) => /[1-9a-f]/.test(k) && BigInt(`0x${k}`) < 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n);
const N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';

/** Ways a signature can be mangled: each keeps 65 bytes, so the fast path sees it whenever its shape allows. */
const mutation = fc.oneof(
  fc.constant((s: string) => s),
  fc.record({ at: fc.nat(64), byte: fc.nat(255) }).map(({ at, byte }) => (s: string) => s.slice(0, at * 2) + byte.toString(16).padStart(2, '0') + s.slice(at * 2 + 2)),
  fc.nat(255).map((v) => (s: string) => s.slice(0, 128) + v.toString(16).padStart(2, '0')),
  fc.constant((s: string) => '00'.repeat(32) + s.slice(64)),
  fc.constant((s: string) => s.slice(0, 64) + '00'.repeat(32) + s.slice(128)),
  fc.constant((s: string) => N + s.slice(64)),
  fc.constant((s: string) => s.slice(0, 64) + N + s.slice(128)),
  fc.constant((s: string) => s.slice(0, 64) + 'ff' + s.slice(66)),
  fc.constant((s: string) => `0x${s.toUpperCase()}`),
  fc.constant((s: string) => s.slice(0, 128)),
);

describe('devnet signatures (libsecp256k1 beside tronweb)', () => {
  it('signTxId makes the signature tronweb makes, byte for byte (RFC 6979, low s)', () => {
    fc.assert(fc.property(key, hex32, (k, txID) => {
      expect(signTxId(txID, k)).toBe(tronwebSign(txID, k));
    }), { numRuns: runs(200), seed: 150 });
  });

  it('recoverSigner answers as tronweb ecRecover on valid and mangled signatures', () => {
    let fast = 0;
    fc.assert(fc.property(key, hex32, hex32, mutation, (k, txID, other, mangle) => {
      const signature = mangle(signTxId(txID, k));
      if (recoverFast(txID, signature) !== undefined) fast += 1;
      expect(recoverSigner(txID, signature)).toBe(tronwebRecover(txID, signature));
      // Signed for another txID: some other address (or none), exactly as tronweb says.
      expect(recoverSigner(other, signature)).toBe(tronwebRecover(other, signature));
    }), { numRuns: 400, seed: 151 });
    // Most draws took the fast path: the comparison is about it, not about the fallback.
    expect(fast).toBeGreaterThan(200);
  });

  it('recovers the signing key\'s address', () => {
    const k = '1'.repeat(64);
    const txID = 'ab'.repeat(32);
    const expected = utils.address.toHex(utils.address.fromPrivateKey(k) as string).toLowerCase();
    expect(recoverFast(txID, signTxId(txID, k))).toBe(expected);
  });

  it('abiDecode answers as tronweb decodeParams for address and uint256 words, clean or dirty, short or long', () => {
    const word = fc.oneof(
      hex32,
      hex32.map((h) => '0'.repeat(24) + h.slice(24)),
      fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => '0'.repeat(24) + Buffer.from(b).toString('hex').toUpperCase()),
    );
    const payload = fc.oneof(
      fc.array(word, { minLength: 0, maxLength: 3 }).map((ws) => ws.join('')),
      fc.tuple(fc.array(word, { minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 63 })).map(([ws, cut]) => ws.join('').slice(cut)),
      fc.array(word, { minLength: 1, maxLength: 2 }).map((ws) => ws.join('').replace(/^./, 'g')),
    );
    const types = fc.constantFrom<string[]>(['address'], ['uint256'], ['address', 'uint256'], ['address', 'address'], ['uint256', 'address']);
    const result = (decode: () => unknown[]): unknown => {
      try {
        return decode();
      } catch {
        return 'throws';
      }
    };
    fc.assert(fc.property(types, payload, (t, hex) => {
      expect(result(() => abiDecode(t, hex))).toEqual(result(() => abiDecodeTronweb(t, hex)));
    }), { numRuns: runs(500), seed: 153 });
  });

  it('txIdentityAndSize is txIdentity and txByteSize of the same transaction', () => {
    const raw: RawData = {
      contract: [{ parameter: { value: { owner_address: '41' + 'a'.repeat(40), to_address: '41' + 'b'.repeat(40), amount: 1_000 }, type_url: 'type.googleapis.com/protocol.TransferContract' }, type: 'TransferContract' }],
      ref_block_bytes: '0a0b', ref_block_hash: '0102030405060708', expiration: 1_700_000_060_000, timestamp: 1_700_000_000_000,
    };
    const signatures = [signTxId('cd'.repeat(32), '5'.repeat(64))];
    expect(txIdentityAndSize({ raw_data: raw }, signatures, 64)).toEqual({ ...txIdentity({ raw_data: raw }), bytes: txByteSize({ raw_data: raw }, signatures, 64) });
  });
});
