/**
 * Chain constants of the devnet. Values follow TRON mainnet (chain parameters as of 2024/2025) unless a
 * comment says otherwise; every number that is a modelling choice is documented here, in one place.
 */

/** TRON produces one block per 3 s slot; the virtual clock advances by exactly this per block. */
export const BLOCK_INTERVAL_MS = 3_000;
/** Resource usage (bandwidth, energy) recovers linearly over a 24 h window (28,800 slots on mainnet). */
export const RESOURCE_WINDOW_MS = 86_400_000;
/** 1 TRX = 1,000,000 sun. */
export const SUN_PER_TRX = 1_000_000;

/** Default genesis time (2025-01-01T00:00:00Z) so a seeded devnet is fully deterministic. */
export const DEFAULT_GENESIS_TIME = 1_735_689_600_000;
/** Blocks behind head that the solidified (walletsolidity) view lags; 19 like mainnet (2/3 of 27 SRs + 1). */
export const DEFAULT_SOLIDIFY_LAG = 19;
/** java-tron's default transaction expiration window used when the node builds a transaction. */
export const TX_EXPIRATION_MS = 60_000;
/** A transaction may not expire more than 24 h after the head block (validateCommon). */
export const MAX_EXPIRATION_AHEAD_MS = 86_400_000;
/** TaPoS references must point into the last 65,536 blocks (ref_block_bytes is 2 bytes). */
export const TAPOS_WINDOW = 65_536;
/** java-tron rejects transactions whose serialized size exceeds 500 KB. */
export const MAX_TX_SIZE = 500 * 1024;
/** java-tron adds this to every transaction's byte size when charging bandwidth (result placeholder). */
export const TX_RESULT_RESERVED_BYTES = 64;

/** Mutable chain parameters (the subset /sim/params may change). */
export interface ChainParams {
  /** Sun per energy unit (getEnergyFee); mainnet 100 since Aug 2024. */
  energyFee: number;
  /** Sun per bandwidth byte when burning (getTransactionFee). */
  transactionFee: number;
  /** Bandwidth burn for a transaction that creates an account (getCreateAccountFee): 0.1 TRX. */
  createAccountFee: number;
  /** Fee of creating an account inside a system contract (getCreateNewAccountFeeInSystemContract): 1 TRX. */
  createNewAccountFeeInSystemContract: number;
  /** Free bandwidth per account per 24 h (getFreeNetLimit). */
  freeNetLimit: number;
  /** Network-wide bandwidth (getTotalNetLimit). */
  totalNetLimit: number;
  /** Network-wide energy (getTotalEnergyLimit), mainnet 180,000,000,000. */
  totalEnergyLimit: number;
  /**
   * TRX (not sun) staked for energy by the rest of the simulated network. Mainnet is ~18-20 billion TRX; we pick
   * 18,000,000,000 so that 1 TRX staked ≈ 180e9 / 18e9 = 10 energy (what mainnet shows, roughly). Devnet stakes
   * are added on top, exactly like java-tron's TotalEnergyWeight, so the ratio moves very slightly when you stake.
   */
  baseEnergyWeight: number;
  /** TRX staked for bandwidth by the rest of the network: 43.2e9 / 43.2e9 → 1 TRX staked ≈ 1 bandwidth. */
  baseNetWeight: number;
  /** Days between UnfreezeBalanceV2 and WithdrawExpireUnfreeze (getUnfreezeDelayDays). */
  unfreezeDelayDays: number;
  /** Maximum delegate lock period, in blocks (getMaxDelegateLockPeriod): 864,000 ≈ 30 days. */
  maxDelegateLockPeriod: number;
  /** Maximum fee_limit in sun (getMaxFeeLimit): 15,000 TRX. */
  maxFeeLimit: number;
  /** Blocks between head and the solidified head. */
  solidifyLag: number;
  /** Confirmations advertised by /sim/info (informational; the solidified view is what TRON clients use). */
  confirmations: number;
  /** Simple voting reward model: annual percentage (0.04 = 4 %) of voted TRX credited as allowance. */
  voteRewardApr: number;
  /**
   * The USDT contract's dynamic-energy `energy_factor` (TIP-491), in java-tron's units: parts per 10,000 ABOVE the
   * base cost, so every opcode costs floor(base × (10,000 + factor) / 10,000). The default 34,000 (×4.4) is the
   * mainnet maximum factor, where USDT sits, and reproduces the observed 64,285 / 130,285 energy of a transfer;
   * 0 is the bare base cost. See dynamic-energy.ts.
   */
  usdtEnergyFactor: number;
  /**
   * Milliseconds between two maintenances (getMaintenanceTimeInterval; mainnet 21,600,000 = 6 h). At the first block
   * whose time reaches the next maintenance time, java-tron applies approved proposals (prices) and starts a new
   * cycle, the only moment a contract's dynamic energy factor moves (Manager.processBlock, MaintenanceManager,
   * ContractStateCapsule.catchUpToCycle). See {@link MAINTENANCE_PARAMS}.
   */
  maintenanceTimeInterval: number;
}

/**
 * The parameters that change only at a maintenance, as on the chain: a change of one (setParams, /sim/params) is
 * scheduled and takes effect after the first block whose time reaches the next maintenance time
 * (`wallet/getnextmaintenancetime`). The others are the simulator's knobs and change at once.
 */
export const MAINTENANCE_PARAMS: ReadonlySet<keyof ChainParams> = new Set(['energyFee', 'transactionFee', 'usdtEnergyFactor', 'maintenanceTimeInterval']);

/** Mainnet-like defaults. */
export const DEFAULT_PARAMS: ChainParams = {
  energyFee: 100,
  transactionFee: 1_000,
  createAccountFee: 100_000,
  createNewAccountFeeInSystemContract: 1_000_000,
  freeNetLimit: 600,
  totalNetLimit: 43_200_000_000,
  totalEnergyLimit: 180_000_000_000,
  baseEnergyWeight: 18_000_000_000,
  baseNetWeight: 43_200_000_000,
  unfreezeDelayDays: 14,
  maxDelegateLockPeriod: 864_000,
  maxFeeLimit: 15_000_000_000,
  solidifyLag: DEFAULT_SOLIDIFY_LAG,
  confirmations: DEFAULT_SOLIDIFY_LAG,
  voteRewardApr: 0.04,
  usdtEnergyFactor: 34_000,
  maintenanceTimeInterval: 21_600_000,
};

/** Parameters that only take whole numbers (java-tron stores them as long). */
export const INTEGER_PARAMS: ReadonlySet<keyof ChainParams> = new Set(['usdtEnergyFactor', 'solidifyLag', 'maintenanceTimeInterval']);

/** Maximum pending unfreeze entries per account (getavailableunfreezecount starts at 32). */
export const MAX_UNFREEZE_ENTRIES = 32;
/** Maximum number of witnesses one VoteWitnessContract may vote for. */
export const MAX_VOTE_NUMBER = 30;
/** Default lock of a locked delegation when lock_period is 0: 3 days in blocks (java-tron DELEGATE_PERIOD). */
export const DEFAULT_LOCK_PERIOD_BLOCKS = 86_400;

/**
 * Energy of the built-in USDT contract at the default factor (34,000), mainnet-observed: a transfer to an address
 * that already holds USDT costs 64,285 energy; to an address with a zero balance (a fresh storage slot) 130,285.
 * Other factors scale them through {@link USDT_PROFILES}.
 */
export const USDT_ENERGY = {
  transferToHolder: 64_285,
  transferToNewHolder: 130_285,
  /** Approximation: a reverted transfer (insufficient balance, bad input) stops early. */
  revert: 10_000,
  /** A transfer while the token is paused: reverts in the whenNotPaused modifier, the first check. */
  revertPaused: 1_068,
  /** A transfer from a blacklisted address: reverts at Tether's require(!isBlackListed[msg.sender]). */
  revertBlacklisted: 1_676,
  /** Approximation for constant (view) calls, reported as energy_used by triggerconstantcontract. */
  view: 1_000,
} as const;

/** One opcode class of a call: [base energy of one opcode, how many the call executes]. */
export type OpcodeGroup = readonly [base: number, count: number];

/**
 * What each USDT outcome executes, as opcode classes with TRON's base costs (SSTORE 5,000 to change a slot and
 * 20,000 to fill an empty one, LOG3 1,756 for the Transfer event, SHA3 42 per mapping key, SLOAD 50, JUMP 8,
 * JUMPI 10, PUSH/DUP/ADD 3, JUMPDEST 1, the 2-energy base ops). The counts of the cheap classes are a calibration,
 * not a trace: they are chosen so that at the default factor each outcome costs exactly its {@link USDT_ENERGY}.
 */
export const USDT_PROFILES = {
  transferToHolder: [[5_000, 2], [1_756, 1], [42, 2], [50, 7], [8, 60], [10, 30], [1, 80], [2, 40], [3, 507]],
  // The same path, but the recipient's balance slot goes from empty to set: one SSTORE costs 20,000 instead of 5,000.
  transferToNewHolder: [[20_000, 1], [5_000, 1], [1_756, 1], [42, 2], [50, 7], [8, 60], [10, 30], [1, 80], [2, 40], [3, 507]],
  revert: [[50, 5], [42, 1], [8, 20], [10, 10], [1, 31], [2, 15], [3, 564]],
  revertPaused: [[50, 1], [8, 4], [10, 3], [1, 6], [2, 4], [3, 40]],
  revertBlacklisted: [[50, 2], [42, 1], [8, 4], [10, 4], [1, 7], [2, 4], [3, 52]],
  view: [[50, 1], [42, 1], [8, 4], [10, 2], [1, 6], [2, 4], [3, 24]],
} as const satisfies Record<keyof typeof USDT_ENERGY, readonly OpcodeGroup[]>;

/** TRC20 metadata of the built-in token. */
export const USDT_META = { name: 'Tether USD', symbol: 'USDT', decimals: 6 } as const;

/** keccak256("Transfer(address,address,uint256)"), the TRC20 Transfer event topic. */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
