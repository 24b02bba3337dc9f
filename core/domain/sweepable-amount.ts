import type { AssetKind } from './model/asset.js';
import { ACTIVATION_BANDWIDTH_FEE_SUN, ACTIVATION_FEE_SUN, type Bandwidth } from './sweep-plan.js';

/**
 * TRX moves off a sub-address (a TRX collection, the recovery after a token sweep) only when the transfer nets at
 * least this much: 0.1 TRX. Less is dust, not worth a transaction whose bandwidth may cost more than it returns. The
 * worker's `minRecoverSun` defaults to the same amount (WorkflowOptions); the API refuses with this one.
 */
export const MIN_TRX_SWEEP_SUN = 100_000n;

/**
 * What a sweep of one asset of a sub-address can work with. For TRX, the chain burns the transfer's fees from the
 * same balance, so `reserveSun` of it cannot be sent (trxTransferReserveSun).
 */
export type Holding = TrxHolding | TokenHolding;
export interface TrxHolding { readonly kind: 'native'; readonly balance: bigint; readonly reserveSun: bigint }
export interface TokenHolding { readonly kind: 'trc20'; readonly balance: bigint }

/** What the chain says about one TRX transfer from an address, read before it is sent. */
export interface TrxTransferFacts {
  /** The sender's bandwidth left today. */
  readonly bandwidth: Bandwidth;
  /** The transfer creates its recipient (an address that never received anything). */
  readonly createsRecipient: boolean;
  /** Bytes of the transfer, and SUN per byte when bandwidth is burnt. */
  readonly transferBytes: number;
  readonly sunPerByte: bigint;
}

/**
 * SUN the chain burns from the sender's own balance for one TRX transfer (sending all of it would fail). To an
 * existing account: the bandwidth fee, unless free and staked bandwidth cover the transfer's bytes. To an account the
 * transfer creates: the 1 TRX creation fee plus 0.1 TRX unless staked bandwidth pays (free bandwidth cannot).
 */
export function trxTransferReserveSun(facts: TrxTransferFacts): bigint {
  const { bandwidth, transferBytes } = facts;
  if (facts.createsRecipient) return ACTIVATION_FEE_SUN + (bandwidth.staked >= transferBytes ? 0n : ACTIVATION_BANDWIDTH_FEE_SUN);
  return bandwidth.free + bandwidth.staked >= transferBytes ? 0n : BigInt(transferBytes) * facts.sunPerByte;
}

/** TRX one transfer can send away: the balance less the reserve, never below 0. */
export function spendableSun(balance: bigint, reserveSun: bigint): bigint {
  return balance > reserveSun ? balance - reserveSun : 0n;
}

/**
 * The sweepable rule (issue #24, "dust is never offered"): what one sweep of the holding moves, or 0 when it is dust.
 * A token moves whole when there is any; TRX moves what is left after the transfer's fees, and only when that is at
 * least `minTrxSun`. The worker's planner reads the chain and sweeps this amount; the API refuses a collection of a
 * 0 (422 BIZ-AMOUNT-BELOW-MINIMUM); the payer page offers only this amount; thresholds count it, never the balance.
 */
export function sweepableAmount(holding: Holding, minTrxSun: bigint): bigint {
  if (holding.kind === 'trc20') return holding.balance > 0n ? holding.balance : 0n;
  const spendable = spendableSun(holding.balance, holding.reserveSun);
  return spendable > 0n && spendable >= minTrxSun ? spendable : 0n;
}

/**
 * The holding a cached balance describes. The cache knows no bandwidth, so a TRX reserve is taken at its least, 0
 * (the free bandwidth every account gets daily pays a transfer to an existing account): what the cache offers then
 * includes everything the planner would sweep. The planner reads the chain again at PENDING, where a TRX balance that
 * fees eat below the minimum still fails (BIZ-NOTHING-TO-COLLECT).
 */
export function cachedHolding(kind: AssetKind, balance: bigint): Holding {
  return kind === 'native' ? { kind, balance, reserveSun: 0n } : { kind, balance };
}
