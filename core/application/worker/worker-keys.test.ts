import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../domain/errors.js';
import type { WalletAddress } from '../../domain/model/wallet.js';
import type { KeyCipher } from '../../ports/key-cipher.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';
import { signerFor } from './worker-keys.js';

/** A store of `keys` (address -> key text) that counts its look-ups; the "cipher" envelope is the key text reversed. */
function store(keys: Record<string, string>) {
  let reads = 0;
  const wallets = {
    findByAddress: async (address: string) => {
      reads += 1;
      const key = keys[address];
      return key === undefined ? null : ({ address, encryptedKey: { v: [...key].reverse().join('') } } as unknown as WalletAddress);
    },
  } as unknown as WalletRepository;
  const cipher = {
    decrypt: async (envelope: { v: string }, aad: string) => new TextEncoder().encode(`${[...envelope.v].reverse().join('')}@${aad}`),
  } as unknown as KeyCipher;
  return { wallets, cipher, reads: () => reads };
}

describe('signerFor', () => {
  it('reads a wallet once per store, decrypts per signature, and never remembers a missing one', async () => {
    const a = store({ TA: 'key-a', TB: 'key-b' });
    for (let i = 0; i < 3; i++) {
      expect(await (await signerFor(a, 'TA')).privateKey()).toBe('key-a@TA');
      expect(await (await signerFor(a, 'TB')).privateKey()).toBe('key-b@TB');
    }
    expect(a.reads()).toBe(2);
    await expect(signerFor(a, 'TC')).rejects.toBeInstanceOf(InfrastructureError);
    await expect(signerFor(a, 'TC')).rejects.toBeInstanceOf(InfrastructureError);
    expect(a.reads()).toBe(4);
    // Another store is read on its own: what one store holds says nothing about another.
    const b = store({ TA: 'other-key' });
    expect(await (await signerFor(b, 'TA')).privateKey()).toBe('other-key@TA');
    expect(b.reads()).toBe(1);
  });

  it('one Signer object per address and cipher (the gateway derives its address once), still decrypting per signature', async () => {
    const a = store({ TA: 'key-a', TB: 'key-b' });
    const first = await signerFor(a, 'TA');
    expect(await signerFor(a, 'TA')).toBe(first);
    expect(await signerFor(a, 'TB')).not.toBe(first);
    let decrypts = 0;
    const counting = { decrypt: async (envelope: never, aad: string) => { decrypts += 1; return a.cipher.decrypt(envelope, aad); } } as unknown as KeyCipher;
    const other = await signerFor({ wallets: a.wallets, cipher: counting }, 'TA');
    expect(other).not.toBe(first);
    expect(await other.privateKey()).toBe('key-a@TA');
    expect(await other.privateKey()).toBe('key-a@TA');
    expect(decrypts).toBe(2);
  });
});
