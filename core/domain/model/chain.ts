/** Chain resources of a TRON address, spec §2 (numbers are energy/bandwidth units; sun amounts are bigint). */
export interface ChainResources {
  readonly energy: {
    readonly available: number;
    readonly used: number;
    readonly limit: number;
    readonly stakedSun: bigint;
    readonly delegatedOutSun: bigint;
    readonly receivedSun: bigint;
  };
  readonly bandwidth: {
    readonly freeAvailable: number;
    readonly freeUsed: number;
    readonly freeLimit: number;
    readonly stakedAvailable: number;
    readonly stakedUsed: number;
    readonly stakedLimit: number;
    readonly stakedSun: bigint;
    readonly delegatedOutSun: bigint;
    readonly receivedSun: bigint;
  };
  readonly withdrawableSun: bigint;
  /**
   * Optional: TRX unstaked whose wait has not ended yet (unfrozenV2 entries not yet expired): out of the liquid balance
   * and out of the stake, back only once withdrawn. What the books against the chain count as stake (issue #36).
   */
  readonly unstakingSun?: bigint;
  readonly delegatedTo: readonly string[];
  readonly receivedFrom: readonly string[];
}

/** What a node says about a transaction id. */
export type TransactionState =
  | { readonly state: 'unknown' }
  | { readonly state: 'pending' }
  | {
    readonly state: 'confirmed'; readonly blockNumber: number; readonly confirmations: number; readonly solidified: boolean;
    readonly feeSun: bigint; readonly energyUsed: number;
    /** Parts of `feeSun` (the receipt's net_fee and energy_fee); absent where a node does not report them. */
    readonly netFeeSun?: bigint; readonly energyFeeSun?: bigint;
    /**
     * TRX the transaction brought into its owner's liquid balance from the chain's books (issue #36, staking booked):
     * `withdrawAmountSun` a WithdrawBalance's voting reward (withdraw_amount), `withdrawExpireAmountSun` unstaked TRX past
     * its wait (withdraw_expire_amount: a WithdrawExpireUnfreeze's, or an UnfreezeBalanceV2's own sweep). Absent: none.
     */
    readonly withdrawAmountSun?: bigint; readonly withdrawExpireAmountSun?: bigint;
  }
  | {
    readonly state: 'failed'; readonly blockNumber: number; readonly reason: string; readonly feeSun: bigint;
    readonly netFeeSun?: bigint; readonly energyFeeSun?: bigint;
  };

/** A signed transaction ready for broadcast; persisted before broadcast (write-ahead). */
export interface SignedTransaction {
  readonly txid: string;
  readonly signedJson: string;
  readonly expiresAt: number;
}
