import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WalletInsertOutcome, WalletRepository } from '../../core/ports/wallet-repository.port.js';
import type { AddressType, WalletAddress } from '../../core/domain/model/wallet.js';
import type { UserId } from '../../core/domain/model/common.js';

/** What pays a new main address its TRX (startDev: the devnet faucet's real transfer; a `Devnet` mint fits too). */
export interface TrxFaucet {
  fund(address: string, amountSun: bigint): void | Promise<unknown>;
}

/** TRX the faucet sends to every new main address in `npm start`: enough for many sweeps' FUNDING_TRX steps. */
export const DEV_MAIN_ADDRESS_TRX_SUN = 1_000_000_000n;

/**
 * Dev-only decorator of the WalletRepository: a main address created on the embedded devnet is funded with TRX
 * (startDev pays it with a real faucet transfer in the next block, which the scanner sees and the books record as money
 * received, so the reconciliation matches; a mint would be a difference no ledger can know of), so a collection's
 * FUNDING_TRX step can pay out of the box (energy comes from the devnet's rental desk).
 * Only a successful insert of a main address triggers it; everything else is passed through untouched.
 */
export class FaucetWalletRepository implements WalletRepository {
  constructor(
    private readonly inner: WalletRepository,
    private readonly faucet: TrxFaucet,
    private readonly amountSun: bigint = DEV_MAIN_ADDRESS_TRX_SUN,
  ) {}

  async insert(wallet: WalletAddress, limits: { readonly maxSubAddresses: number }): Promise<WalletInsertOutcome> {
    const outcome = await this.inner.insert(wallet, limits);
    if (outcome === 'created' && wallet.addressType === 1 && wallet.networkCode === 'TRON') await this.faucet.fund(wallet.address, this.amountSun);
    return outcome;
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return this.inner.findByAddress(address);
  }

  findById(id: number): Promise<WalletAddress | null> {
    return this.inner.findById(id);
  }

  findMain(userId: UserId, networkCode: string): Promise<WalletAddress | null> {
    return this.inner.findMain(userId, networkCode);
  }

  countSubs(userId: UserId, networkCode: string): Promise<number> {
    return this.inner.countSubs(userId, networkCode);
  }

  listByUser(userId: UserId, filter: { readonly addressType?: AddressType }, page: PageRequest): Promise<Page<WalletAddress>> {
    return this.inner.listByUser(userId, filter, page);
  }

  findManaged(addresses: readonly string[]): Promise<WalletAddress[]> {
    return this.inner.findManaged(addresses);
  }
}
