import { InfrastructureError } from '../../domain/errors.js';
import type { Signer } from '../../ports/chain-gateway.port.js';
import type { KeyCipher } from '../../ports/key-cipher.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';
import type { WalletAddress } from '../../domain/model/wallet.js';

/** What a step needs to sign for one of our addresses. */
export interface SignerDeps {
  readonly wallets: WalletRepository;
  readonly cipher: KeyCipher;
}

/**
 * A Signer for a managed address. The key is decrypted only when the gateway asks for it, once per signature, and
 * never kept: a worker holds no plaintext key between steps. A missing wallet is corrupted state, not transient.
 */
export async function signerFor(deps: SignerDeps, address: string): Promise<Signer> {
  const encryptedKey = await envelopeOf(deps.wallets, address);
  return {
    address,
    privateKey: async () => new TextDecoder().decode(await deps.cipher.decrypt(encryptedKey, address)),
  };
}

/**
 * The encrypted keys already read, per wallet store and address. A wallet record is never updated nor deleted
 * (WalletRepository has neither, and a key import never overwrites), so its envelope, once read, is the stored one
 * for good: a sweep signs four times with two addresses, and each look-up was a store round trip. Only ciphertext is
 * kept; the key is still decrypted per signature and dropped. Bounded per store (cleared when full).
 */
const ENVELOPES = new WeakMap<WalletRepository, Map<string, WalletAddress['encryptedKey']>>();
const ENVELOPES_MAX = 50_000;

async function envelopeOf(wallets: WalletRepository, address: string): Promise<WalletAddress['encryptedKey']> {
  let known = ENVELOPES.get(wallets);
  const cached = known?.get(address);
  if (cached !== undefined) return cached;
  const wallet = await wallets.findByAddress(address);
  if (wallet === null) {
    throw new InfrastructureError('INTERNAL-ERROR', `no managed wallet for ${address}`, { transient: false });
  }
  if (known === undefined) ENVELOPES.set(wallets, (known = new Map()));
  if (known.size >= ENVELOPES_MAX) known.clear();
  known.set(address, wallet.encryptedKey);
  return wallet.encryptedKey;
}
