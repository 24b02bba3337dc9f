import type { UserId } from '../domain/model/common.js';
import type { Deposit, DepositStatus } from '../domain/model/deposit.js';
import type { Page, PageRequest } from './page.js';

/** Filters of DepositRepository.listByUser; an absent field does not filter. */
export interface DepositFilter {
  readonly address?: string;
  readonly assetSymbol?: string;
  readonly status?: DepositStatus;
}

/** The answer of DepositRepository.insert: the stored record, and whether this call created it. */
export interface DepositInsert {
  readonly created: boolean;
  readonly deposit: Deposit;
}

/** Deposit records written by the balance scanner and read by the API. */
export interface DepositRepository {
  /**
   * Stores `deposit` unless a record of the same (networkCode, transferId) exists, atomically even between processes:
   * a rescan, a restart or a second scanner gets `{ created: false }` and the stored record, unchanged (its
   * depositId, status and version, not the caller's). A depositId already used by another transfer is a caller bug:
   * ConcurrencyConflict.
   */
  insert(deposit: Deposit): Promise<DepositInsert>;
  /** Global lookup by deposit id (ownership is checked by the caller); null when unknown. */
  findById(depositId: string): Promise<Deposit | null>;
  /** The record of one transfer (BlockTransfer.id) on a network; null when none was written. */
  findByTransfer(networkCode: string, transferId: string): Promise<Deposit | null>;
  /**
   * Replaces the record when the stored version is `deposit.version - 1` (status changes are versioned, see
   * advancedDeposit); throws ConcurrencyConflict otherwise, or when the record is unknown, and writes nothing.
   * depositId, transferId and networkCode identify the record and never change.
   */
  update(deposit: Deposit): Promise<void>;
  /**
   * The user's deposits, newest first (detectedAt descending, then the later inserted first), filtered by every
   * given field (exact match), as one page plus the total of matching records.
   */
  listByUser(userId: UserId, filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>>;
  /**
   * Up to `limit` `pending` records of the network whose block is at or below `blockNumber`, lowest block first (ties
   * by deposit id): what the scanner checks against its own chain once that height is final.
   */
  listPendingUpTo(networkCode: string, blockNumber: number, limit: number): Promise<Deposit[]>;
  /**
   * Up to `limit` records of the network whose automatic collection trigger is `due` (Deposit.autoCollect) or whose
   * started trigger's task is followed (Deposit.autoCollectTask, issue #34), earliest confirmed first (ties by deposit
   * id): what the auto collector judges on each pass.
   */
  listAutoCollectDue(networkCode: string, limit: number): Promise<Deposit[]>;
}
