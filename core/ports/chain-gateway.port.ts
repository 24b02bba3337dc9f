import type { ChainResources, SignedTransaction, TransactionState } from '../domain/model/chain.js';

/** A private key made available only for the duration of one call (decrypted by the caller through KeyCipher). */
export type KeyProvider = () => Promise<string>;

/**
 * One key of one address: `privateKey` answers the same key on every call (a gateway may remember, per Signer object,
 * what it derived from it: the address, never the key).
 */
export interface Signer {
  readonly address: string;
  readonly privateKey: KeyProvider;
}

export type Resource = 'ENERGY' | 'BANDWIDTH';

/** What the worker may ask the chain to do; each builds and signs locally and returns the transaction unsent. */
export type TransactionIntent =
  | { readonly kind: 'transfer-trx'; readonly to: string; readonly amountSun: bigint }
  | { readonly kind: 'transfer-trc20'; readonly contract: string; readonly to: string; readonly amount: bigint; readonly feeLimitSun: bigint }
  | { readonly kind: 'delegate'; readonly resource: Resource; readonly receiver: string; readonly amountSun: bigint; readonly lockBlocks?: number }
  | { readonly kind: 'undelegate'; readonly resource: Resource; readonly receiver: string; readonly amountSun: bigint }
  | { readonly kind: 'freeze'; readonly resource: Resource; readonly amountSun: bigint }
  | { readonly kind: 'unfreeze'; readonly resource: Resource; readonly amountSun: bigint }
  | { readonly kind: 'withdraw-unfrozen' }
  | { readonly kind: 'vote'; readonly votes: readonly { readonly witness: string; readonly count: number }[] }
  | { readonly kind: 'withdraw-reward' };

/** An address's TRX as one account read shows it (ChainGateway.getTrxHoldings), in SUN. */
export interface TrxHoldings {
  readonly liquidSun: bigint;
  /** Staked (Stake 2.0, for energy and for bandwidth), the part delegated to others included. */
  readonly stakedSun: bigint;
  /** Unstaked and not withdrawn yet: still in its wait, or withdrawable. */
  readonly unstakingSun: bigint;
}

/**
 * The chain, through a node. Failures are InfrastructureError with CHAIN-* codes (CHAIN-BALANCE-QUERY-FAILED for
 * reads, CHAIN-BROADCAST-FAILED for refused broadcasts, CHAIN-NODE-UNAVAILABLE when unreachable).
 * A state read (balances, resources, existence, a dry run, the factor, prices) may answer what a node a block behind
 * would: a gateway may share one read per block (adapters/tron CachingChainGateway), never past a newer block it knows
 * of nor past a transaction it sent touching the address; the energy factor and the prices, which the chain moves only
 * at a maintenance (TRON: approved proposals and a new dynamic-energy cycle, every 6 h), until the next maintenance.
 * Transactions' states and broadcasts are always asked.
 */
export interface ChainGateway {
  /** A fresh key pair, made locally; the key never leaves the process except encrypted by the caller. */
  createAccount(): Promise<{ readonly address: string; readonly privateKey: string }>;
  /** True for a syntactically valid address of this network. */
  isAddress(address: string): boolean;
  /** Native balance in SUN (0n for an account that does not exist yet). */
  getTrxBalance(address: string): Promise<bigint>;
  /**
   * The address's TRX from one account read, liquid and in stake (issue #36: the books against the chain); all 0n for
   * an account that does not exist yet. `liquidSun` is getTrxBalance's answer.
   */
  getTrxHoldings(address: string): Promise<TrxHoldings>;
  /** TRC20 balance in the token's smallest unit. */
  getTokenBalance(address: string, contract: string): Promise<bigint>;
  getResources(address: string): Promise<ChainResources>;
  /**
   * Energy the address can spend now: exactly getResources' `energy.available` (a gateway may answer it from fewer
   * node reads: TRON's needs one instead of two, issue #27).
   */
  energyAvailable(address: string): Promise<number>;
  /** Whether the address exists on chain (has been activated). */
  accountExists(address: string): Promise<boolean>;
  /** SUN of staked energy the address can still delegate (getcandelegatedmaxsize). */
  getCanDelegateEnergySun(address: string): Promise<bigint>;
  /** Energy a TRC20 transfer would consume. */
  estimateTrc20TransferEnergy(from: string, to: string, contract: string, amount: bigint): Promise<number>;
  /**
   * The contract's dynamic energy factor (TIP-491; getcontractinfo's contract_state.energy_factor, parts per
   * 10,000 above the base, 0 when the node omits it): what a dry run of a call to it depends on besides its inputs.
   * A dry run is reused only while it is unchanged (issue #27).
   */
  energyFactor(contract: string): Promise<number>;
  /**
   * A mark of the chain's maintenance period (TRON applies proposals and moves a contract's dynamic energy factor only
   * at a maintenance): the chain time, epoch ms, of the next maintenance, answered only where the gateway knows the
   * chain's time to be well inside the period (far enough from both of its ends that a node a block behind has the
   * same period); null otherwise. Two equal marks: no maintenance between them, so energyFactor and getChainPrices
   * answered the same. A dry run made in a marked period is reused while the mark stays (issue #39).
   */
  maintenancePeriod(): Promise<number | null>;
  /**
   * What the chain charges now when resources are burnt (getchainparameters: getEnergyFee, getTransactionFee):
   * SUN per energy unit and SUN per bandwidth byte. Prices change by proposal: read them, never hard-code them.
   */
  getChainPrices(): Promise<{ readonly energySun: bigint; readonly bandwidthSun: bigint }>;
  /** Energy units per SUN of stake (for self-delegation sizing). */
  energyPerStakedSun(): Promise<number>;
  /** Builds and signs; returns the txid and signed JSON BEFORE anything is sent (write-ahead). */
  prepare(signer: Signer, intent: TransactionIntent): Promise<SignedTransaction>;
  /** Sends a prepared transaction; a duplicate of an already-accepted one counts as accepted. */
  broadcast(tx: SignedTransaction): Promise<void>;
  /** Where a transaction stands: unknown, pending, confirmed (with confirmations and solidified flag) or failed. */
  getTransaction(txid: string): Promise<TransactionState>;
  /**
   * Whether a transaction is in a solidified block of its validity window, read block by block from the solidity
   * endpoint: after the block it references (TaPoS; it did not exist before) up to the last block at or before its
   * expiration (no later block may include it). Solidified blocks are final, so a node behind cannot make a
   * transaction that landed look absent: it lacks the block instead. 'absent': every block of the window was read and
   * none holds it, the only proof that a sent transaction is dead; 'included': one holds it; 'unknown': the window is
   * not all solidified, a block of it was not returned, or the window is longer than the gateway reads.
   */
  findInSolidified(tx: SignedTransaction): Promise<'included' | 'absent' | 'unknown'>;
  /** Current head block. */
  head(): Promise<{ readonly number: number; readonly timestamp: number }>;
  /**
   * The latest solidified (irreversible) block. A transaction whose expiration is before this block's timestamp can
   * never be included any more; whether it was is for findInSolidified to say.
   */
  solidifiedHead(): Promise<{ readonly number: number; readonly timestamp: number }>;
}
