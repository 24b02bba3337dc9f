/**
 * Energy from the user's own main address: it delegates part of its energy stake to the sub-address for the
 * sweep and takes it back afterwards (UNDELEGATING_ENERGY). Everything goes through the ChainGateway port, so this
 * provider works on any chain adapter, and acquire() only prepares: the worker persists, then broadcasts.
 */
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { ChainGateway, Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';

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

/** Default safety margin of a self-delegation: 500 basis points (5 %). */
export const DEFAULT_DELEGATION_MARGIN_BPS = 500;

/**
 * Energy to delegate for a request of `energy` with a margin of `marginBps` basis points, rounded up: the energy a
 * delegation gives is recomputed from the network's TotalEnergyWeight at every use, and that weight moves with
 * every stake and unstake on the network, so a delegation sized exactly can come up a few energy short by the time
 * the transfer runs. With the margin it still covers the request after the weight grows by up to `marginBps`.
 */
export function withMargin(energy: number, marginBps: number): number {
  return Number((BigInt(energy) * BigInt(10_000 + marginBps) + 9_999n) / 10_000n);
}

/** Options of {@link SelfDelegationEnergyProvider}. */
export interface SelfDelegationEnergyProviderOptions {
  /**
   * Lock the delegation for this many blocks (0, the default, = unlocked). Unlocked lets the sweep give the
   * stake back right after the transfer; a lock only protects the receiver, who is our own sub-address.
   */
  readonly lockBlocks?: number;
  /**
   * Extra energy delegated on top of the request, in basis points (default 500 = 5 %). Why: the energy a
   * delegated TRX yields is TotalEnergyLimit / TotalEnergyWeight at the moment it is used, not when it was
   * delegated; other people's stakes raise the weight between the delegation and the transfer (by a fraction of a
   * percent on a quiet hour, more around large stakes), and a transfer a few energy short burns TRX for the rest
   * or fails OUT_OF_ENERGY. The margin costs nothing but stake that is taken back after the sweep, and canProvide
   * and acquire both count it, so a main address that can cover only the bare request is not chosen.
   */
  readonly marginBps?: number;
}

/** What was issued for a reference, to answer a repeated acquire with the same transaction. */
interface Issued {
  readonly main: string;
  readonly receiver: string;
  readonly energy: number;
  readonly order: EnergyOrder & { readonly kind: 'transaction' };
}

/** References remembered per process; the oldest are forgotten first (the worker's own record outlives them). */
const MAX_REMEMBERED = 10_000;

/** Self-delegation of ENERGY from the main address (Stake 2.0 DelegateResourceContract). */
export class SelfDelegationEnergyProvider implements EnergyProvider {
  readonly name = 'self' as const;
  private readonly lockBlocks: number;
  private readonly marginBps: number;
  private readonly issued = new Map<string, Issued>();

  constructor(
    private readonly chain: ChainGateway,
    options: SelfDelegationEnergyProviderOptions = {},
  ) {
    this.lockBlocks = options.lockBlocks ?? 0;
    this.marginBps = options.marginBps ?? DEFAULT_DELEGATION_MARGIN_BPS;
    if (!Number.isSafeInteger(this.marginBps) || this.marginBps < 0 || this.marginBps > 10_000) {
      throw new RangeError(`marginBps must be an integer between 0 and 10000, got ${options.marginBps}`);
    }
  }

  /** SUN the main address would delegate for `energy`, margin included, at the network's live ratio. */
  async sunFor(energy: number): Promise<bigint> {
    if (!Number.isSafeInteger(energy) || energy <= 0) {
      throw new DomainError('VALIDATION-ERROR', { field: 'energy', message: 'energy: must be a positive integer' });
    }
    return selfDelegationSun(withMargin(energy, this.marginBps), await this.chain.energyPerStakedSun());
  }

  /** True when the main address's undelegated energy stake (getcandelegatedmaxsize) covers the request with its margin. */
  async canProvide(request: EnergyRequest, main: Signer): Promise<boolean> {
    const [needed, available] = await Promise.all([this.sunFor(request.energy), this.chain.getCanDelegateEnergySun(main.address)]);
    return available >= needed;
  }

  /** Free when the stake covers the request: the stake is lent for the sweep and taken back, nothing is burned. */
  async quote(request: EnergyRequest, main: Signer): Promise<EnergyQuote | null> {
    if (!(await this.canProvide(request, main))) return null;
    return { priceSun: 0n, energy: request.energy, provider: 'self', durationSec: null };
  }

  /**
   * An unsent, signed delegation (write-ahead: persist `tx`, then broadcast). Within this process the same
   * `reference` returns the same transaction for as long as it can still land, or has landed (a rebroadcast is
   * then a harmless duplicate), so it never delegates twice; across restarts the worker's persisted record does
   * that job. A reference reused for different terms is a VALIDATION-ERROR. BIZ-ENERGY-UNAVAILABLE when the stake
   * no longer covers the request.
   */
  async acquire(request: EnergyRequest, main: Signer): Promise<EnergyOrder> {
    if (!request.reference) throw new DomainError('VALIDATION-ERROR', { field: 'reference', message: 'reference: required' });
    const prior = await this.stillValid(request, main.address);
    if (prior) return prior;
    const [needed, available] = await Promise.all([this.sunFor(request.energy), this.chain.getCanDelegateEnergySun(main.address)]);
    if (available < needed) {
      throw new DomainError('BIZ-ENERGY-UNAVAILABLE', {
        message: `main address can delegate ${available} SUN of energy stake, ${needed} needed for ${request.energy} energy `
          + `(with a ${this.marginBps / 100} % margin)`,
      });
    }
    const tx = await this.chain.prepare(main, {
      kind: 'delegate',
      resource: 'ENERGY',
      receiver: request.receiver,
      amountSun: needed,
      ...(this.lockBlocks > 0 ? { lockBlocks: this.lockBlocks } : {}),
    });
    const order = { kind: 'transaction' as const, tx, delegatedSun: needed };
    if (this.issued.size >= MAX_REMEMBERED) this.issued.delete(this.issued.keys().next().value!);
    this.issued.set(request.reference, { main: main.address, receiver: request.receiver, energy: request.energy, order });
    return order;
  }

  /** The order issued earlier for this reference, unless it expired without ever reaching the chain. */
  private async stillValid(request: EnergyRequest, main: string): Promise<EnergyOrder | undefined> {
    const prior = this.issued.get(request.reference);
    if (!prior) return undefined;
    if (prior.main !== main || prior.receiver !== request.receiver || prior.energy !== request.energy) {
      throw new DomainError('VALIDATION-ERROR', { field: 'reference', message: 'reference: already used for a different energy request' });
    }
    if (prior.order.tx.expiresAt > (await this.chain.head()).timestamp) return prior.order;
    if ((await this.chain.getTransaction(prior.order.tx.txid)).state !== 'unknown') return prior.order;
    this.issued.delete(request.reference);
    return undefined;
  }

  /** Not used: a self-delegation is tracked through its transaction (ChainGateway.getTransaction). */
  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    throw new InfrastructureError('INTERNAL-ERROR', `self-delegation has no orders (asked for ${orderId}); track the transaction`, {
      transient: false,
    });
  }
}
