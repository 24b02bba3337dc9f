/**
 * Energy from the user's own main address: it delegates part of its energy stake to the sub-address for the
 * sweep and takes it back afterwards (UNDELEGATING_ENERGY). Everything goes through the ChainGateway port, so this
 * provider works on any chain adapter, and acquire() only prepares: the worker persists, then broadcasts.
 */
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { ChainGateway, Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyRequest } from '../../core/ports/energy-provider.port.js';

const SUN_PER_TRX = 1_000_000n;

/**
 * SUN of stake to delegate so the receiver gains at least `energy`. java-tron counts delegated stake in whole TRX
 * (floor(sun / 1e6) × TotalEnergyLimit / TotalEnergyWeight, floored), so the amount is whole TRX, rounded up, and
 * re-checked against the floating-point ratio. At least 1 TRX, the chain's minimum delegation.
 */
export function selfDelegationSun(energy: number, energyPerStakedSun: number): bigint {
  if (!Number.isSafeInteger(energy) || energy <= 0) throw new RangeError(`energy must be a positive integer, got ${energy}`);
  if (!(energyPerStakedSun > 0) || !Number.isFinite(energyPerStakedSun)) {
    throw new RangeError(`energyPerStakedSun must be positive, got ${energyPerStakedSun}`);
  }
  const perTrx = energyPerStakedSun * 1_000_000;
  let trx = Math.max(1, Math.ceil(energy / perTrx));
  // The division can round either way: settle on the least whole TRX that covers the request.
  while (Math.floor(trx * perTrx) < energy) trx++;
  while (trx > 1 && Math.floor((trx - 1) * perTrx) >= energy) trx--;
  return BigInt(trx) * SUN_PER_TRX;
}

/** Options of {@link SelfDelegationEnergyProvider}. */
export interface SelfDelegationEnergyProviderOptions {
  /**
   * Lock the delegation for this many blocks (0, the default, = unlocked). Unlocked lets the sweep give the
   * stake back right after the transfer; a lock only protects the receiver, who is our own sub-address.
   */
  readonly lockBlocks?: number;
}

/** Self-delegation of ENERGY from the main address (Stake 2.0 DelegateResourceContract). */
export class SelfDelegationEnergyProvider implements EnergyProvider {
  readonly name = 'self' as const;
  private readonly lockBlocks: number;

  constructor(
    private readonly chain: ChainGateway,
    options: SelfDelegationEnergyProviderOptions = {},
  ) {
    this.lockBlocks = options.lockBlocks ?? 0;
  }

  /** SUN the main address would delegate for `energy` at the network's current ratio. */
  async sunFor(energy: number): Promise<bigint> {
    return selfDelegationSun(energy, await this.chain.energyPerStakedSun());
  }

  /** True when the main address's undelegated energy stake (getcandelegatedmaxsize) covers the request. */
  async canProvide(request: EnergyRequest, main: Signer): Promise<boolean> {
    const [needed, available] = await Promise.all([this.sunFor(request.energy), this.chain.getCanDelegateEnergySun(main.address)]);
    return available >= needed;
  }

  /**
   * An unsent, signed delegation (write-ahead: persist `tx`, then broadcast). Each call signs a new transaction;
   * the worker's persisted record, not `reference`, is what keeps a resumed step from delegating twice.
   * BIZ-ENERGY-UNAVAILABLE when the stake no longer covers the request.
   */
  async acquire(request: EnergyRequest, main: Signer): Promise<EnergyOrder> {
    const [needed, available] = await Promise.all([this.sunFor(request.energy), this.chain.getCanDelegateEnergySun(main.address)]);
    if (available < needed) {
      throw new DomainError('BIZ-ENERGY-UNAVAILABLE', {
        message: `main address can delegate ${available} SUN of energy stake, ${needed} needed for ${request.energy} energy`,
      });
    }
    const tx = await this.chain.prepare(main, {
      kind: 'delegate',
      resource: 'ENERGY',
      receiver: request.receiver,
      amountSun: needed,
      ...(this.lockBlocks > 0 ? { lockBlocks: this.lockBlocks } : {}),
    });
    return { kind: 'transaction', tx, delegatedSun: needed };
  }

  /** Not used: a self-delegation is tracked through its transaction (ChainGateway.getTransaction). */
  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    throw new InfrastructureError('INTERNAL-ERROR', `self-delegation has no orders (asked for ${orderId}); track the transaction`, {
      transient: false,
    });
  }
}
