import { InfrastructureError } from '../../domain/errors.js';
import type { Signer } from '../../ports/chain-gateway.port.js';
import type { KeyCipher } from '../../ports/key-cipher.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';

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
  const wallet = await deps.wallets.findByAddress(address);
  if (wallet === null) {
    throw new InfrastructureError('INTERNAL-ERROR', `no managed wallet for ${address}`, { transient: false });
  }
  return {
    address,
    privateKey: async () => new TextDecoder().decode(await deps.cipher.decrypt(wallet.encryptedKey, address)),
  };
}
