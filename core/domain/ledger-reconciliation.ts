/**
 * The books against the chain (issue #36 item 2): the pure rule that judges one custodial address and asset. The
 * ledger books deposits when the scanner confirms them and sweeps and withdrawals after they end, so the chain may
 * differ from the books for reasons the books already know of, and for reasons they cannot know of. Only the second
 * kind is a discrepancy, and it is reported, never corrected.
 */

/** Why part of a difference is expected. */
export type ReconciliationReason =
  /** Deposits to the address the scanner saw and has not confirmed yet: the chain has them, the books not yet. */
  | 'pending_deposit'
  /**
   * TRX the address staked (or unstaked and may withdraw) behind the books' back: out of its liquid balance, still in
   * the books' liquid account. Stake made through the API is booked (issue #36) and needs no explanation.
   */
  | 'staked';

/** What is known of one custodial address and asset when it is judged. Amounts in the asset's smallest unit. */
export interface ReconciliationFacts {
  readonly assetSymbol: string;
  /** The custodial account's booked balance. */
  readonly ledger: bigint;
  /** The address's liquid balance on chain. */
  readonly chain: bigint;
  /** The amounts of the address's pending deposits of the asset (seen by the scanner, not confirmed). */
  readonly pendingIn: bigint;
  /** TRX only: what the address holds in stake (staked, unstaking, and unstaked awaiting withdrawal); 0 for a token. */
  readonly stakedSun: bigint;
  /** TRX only: what the books hold as the address's staked and unstaking TRX (its `staked` and `unstaking` accounts); absent: 0. */
  readonly bookedStakeSun?: bigint;
  /** TRX only: of `stakedSun`, what is unstaked and not withdrawn (in its wait, or withdrawable); absent: 0. */
  readonly unstakingSun?: bigint;
  /** TRX only: of `bookedStakeSun`, what the books' `unstaking` account holds; absent: 0. */
  readonly bookedUnstakingSun?: bigint;
  /** A sweep or a withdrawal that touches the address has not ended: its booking comes after, so nothing is judged. */
  readonly inFlight: boolean;
}

/**
 * matched: the books equal the chain. explained: they differ by exactly what the reasons account for. unsettled: work
 * in flight, not judged. discrepancy: a difference nothing explains (`unexplained` is chain − books − what is explained).
 */
export type ReconciliationStatus = 'matched' | 'explained' | 'unsettled' | 'discrepancy';

export interface ReconciliationJudgement {
  readonly status: ReconciliationStatus;
  /** chain − books. */
  readonly difference: bigint;
  /** The parts of the difference the reasons account for, each non-zero; they sum with `unexplained` to `difference`. */
  readonly explained: readonly { readonly reason: ReconciliationReason; readonly amount: bigint }[];
  /** What is left; 0 unless status is discrepancy or unsettled. */
  readonly unexplained: bigint;
  /**
   * TRX: where the chain's stake differs from the books' `staked` and `unstaking` accounts (chain − books, each) and the
   * liquid difference does not mirror it; both 0 otherwise, and for a token. Either one non-zero is a discrepancy
   * (unsettled in flight) even when the liquid balance matches.
   */
  readonly stakeUnexplained: { readonly staked: bigint; readonly unstaking: bigint };
}

const NO_STAKE_DIFFERENCE = { staked: 0n, unstaking: 0n } as const;

/**
 * Judges one address and asset:
 * - in flight: unsettled, whatever the figures (the difference is still reported);
 * - pending deposits always explain their amount (the scanner saw them; the books take them at confirmation);
 * - the stake the books do not hold (the chain's stake less the books' staked and unstaking TRX: stake made behind the
 *   books' back, or given back to the liquid balance behind it) explains minus its amount only when that closes the rest
 *   exactly: stake bought with booked TRX leaves the liquid balance short of the books by the stake; stake funded behind
 *   the books' back does not, and then explaining it would invent a difference. Stake made through the API is booked
 *   (liquid to staked), so it explains nothing and needs nothing;
 * - the stake itself (issue #36): unless the stake the books do not hold was explained by the liquid difference (it only
 *   moved between liquid and stake behind the books' back), the chain's staked and unstaking TRX are judged against the
 *   books' `staked` and `unstaking` accounts, so stake that appeared, vanished or changed state behind their back is
 *   reported even when the liquid balance matches (`stakeUnexplained`);
 * - anything left is a discrepancy, never corrected here.
 * Always: difference = sum(explained) + unexplained (the liquid balance's; the stake's is apart).
 */
export function judgeReconciliation(f: ReconciliationFacts): ReconciliationJudgement {
  const difference = f.chain - f.ledger;
  const explained: { reason: ReconciliationReason; amount: bigint }[] = [];
  if (f.pendingIn !== 0n) explained.push({ reason: 'pending_deposit', amount: f.pendingIn });
  let rest = difference - f.pendingIn;
  const unbookedStake = f.stakedSun - (f.bookedStakeSun ?? 0n);
  let stakeUnexplained: ReconciliationJudgement['stakeUnexplained'] = NO_STAKE_DIFFERENCE;
  if (rest !== 0n && unbookedStake !== 0n && rest === -unbookedStake) {
    explained.push({ reason: 'staked', amount: -unbookedStake });
    rest = 0n;
  } else {
    const unstaking = (f.unstakingSun ?? 0n) - (f.bookedUnstakingSun ?? 0n);
    stakeUnexplained = { staked: unbookedStake - unstaking, unstaking };
  }
  const stakeOff = stakeUnexplained.staked !== 0n || stakeUnexplained.unstaking !== 0n;
  if (f.inFlight) return { status: 'unsettled', difference, explained, unexplained: rest, stakeUnexplained };
  if (rest !== 0n || stakeOff) return { status: 'discrepancy', difference, explained, unexplained: rest, stakeUnexplained };
  return {
    status: difference === 0n && explained.length === 0 ? 'matched' : 'explained', difference, explained, unexplained: 0n, stakeUnexplained,
  };
}

/** The identity of a judged line between passes: user, network, address and asset. */
export function reconciliationKey(line: { readonly userId: number; readonly networkCode: string; readonly address: string; readonly assetSymbol: string }): string {
  return `${line.userId}|${line.networkCode}|${line.address}|${line.assetSymbol}`;
}

/**
 * Which discrepancies a pass reports (the worker's job): a difference one look sees may be a transfer landing between
 * the scanner's cursor and the balance read, so only one that the previous pass saw with the same unexplained amount
 * is reported, and only once per amount (`reported` holds what was reported last per key; a key that settles is
 * forgotten, so a later difference is reported again). Answers the keys to report now and the state for the next pass.
 */
export function stableDiscrepancies(
  previous: ReadonlyMap<string, bigint>, reported: ReadonlyMap<string, bigint>, now: ReadonlyMap<string, bigint>,
): { readonly report: string[]; readonly reported: Map<string, bigint> } {
  const report: string[] = [];
  const next = new Map<string, bigint>();
  for (const [key, amount] of now) {
    if (previous.get(key) !== amount) {
      // Not yet stable: what was reported for the key stays reported until the key settles.
      if (reported.has(key)) next.set(key, reported.get(key)!);
      continue;
    }
    if (reported.get(key) !== amount) report.push(key);
    next.set(key, amount);
  }
  return { report, reported: next };
}
