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
  // One Signer object per envelope and cipher: the gateway derives each signer's address from its key once.
  let signers = SIGNERS.get(encryptedKey);
  const known = signers?.get(deps.cipher);
  if (known !== undefined && known.address === address) return known;
  const signer: Signer = {
    address,
    privateKey: async () => new TextDecoder().decode(await deps.cipher.decrypt(encryptedKey, address)),
  };
  if (signers === undefined) SIGNERS.set(encryptedKey, (signers = new WeakMap()));
  signers.set(deps.cipher, signer);
  return signer;
}

/** The Signer made for an envelope (the remembered one of ENVELOPES, by identity) and a cipher. */
const SIGNERS = new WeakMap<WalletAddress['encryptedKey'], WeakMap<KeyCipher, Signer>>();

/**
 * The encrypted keys already read, per wallet store and address: a sweep signs four times with two addresses, and
 * each look-up was a store round trip. The service never changes a wallet's key (WalletRepository has no update nor
 * delete, and a key import never overwrites). `npm run keys:rotate` does re-wrap the envelope in place under a newer
 * KEK, but a remembered older envelope still opens: this process's keyring holds the KEK it was written under until
 * the process restarts with a configuration that drops it (docs/operations.md, "Key rotation", step 4), and the
 * restart empties this memo. Only ciphertext is kept; the key is still decrypted per signature and dropped. Bounded
 * per store (cleared when full).
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
