import type { CollectionTask } from '../domain/model/collection-task.js';
import type { Command } from '../domain/model/command.js';
import type { Deposit } from '../domain/model/deposit.js';
import type { PaymentRequestChange } from '../domain/model/payment-request.js';
import type { WebhookEvent } from '../domain/model/webhook.js';
import type { VelocityCharge } from '../domain/withdrawal-policy-rules.js';

/**
 * Writes that must land together or not at all: e.g. a task's terminal transition, its command's terminal status
 * (which releases the address lock and balance_locked) and the webhook event in the outbox; or a deposit's status
 * change and its deposit.* event.
 * Tasks and commands are optimistic replaces (stored version = version - 1); new ones are inserted (version 1).
 */
export interface ChangeSet {
  readonly newCommands?: readonly Command[];
  readonly newTasks?: readonly CollectionTask[];
  readonly commands?: readonly Command[];
  readonly tasks?: readonly CollectionTask[];
  readonly events?: readonly WebhookEvent[];
  /**
   * Deposit records to create, insert-once by (networkCode, transferId) as DepositRepository.insert: a transfer that
   * already has a record, or a taken deposit id, is a ConcurrencyConflict and the change set writes nothing. (Unlike
   * insert, which answers the stored record: the change set's events belong to the creation, so a redo must not land.)
   */
  readonly newDeposits?: readonly Deposit[];
  /**
   * Deposit records to replace, as DepositRepository.update: the stored version must be `version - 1` and the identity
   * (depositId, transferId, networkCode) must match; otherwise ConcurrencyConflict and nothing is written.
   */
  readonly deposits?: readonly Deposit[];
  /**
   * Payment requests to replace on their cashier tokens (issue #25): only the token's `payment` and `version` are
   * written, when the stored version is `version - 1` (else ConcurrencyConflict and nothing is written); the sliding
   * expiry (extendExpiry, which bumps no version) and every other field stay as stored.
   */
  readonly payments?: readonly PaymentRequestChange[];
  /**
   * A withdrawal's velocity limits (issue #26), judged atomically with the rest of the change set: under a lock of
   * the user (so parallel commits of that user, in any process, are judged one after the other), the user's counted
   * withdrawals of the asset are totalled (withdrawal-policy-rules.ts velocityTotals, on the committed commands) and
   * velocityRefusal decides. A refusal throws DomainError with its POLICY-VELOCITY-* code and writes nothing. The
   * charged withdrawal itself is one of `newCommands`.
   */
  readonly velocity?: VelocityCharge;
}

export interface UnitOfWork {
  /**
   * Applies every write of the change set atomically. Throws ConcurrencyConflict (and writes nothing) when any
   * replace finds another version, and DomainError BIZ-COMMAND-LOCKED when a new fund-moving command's address is
   * already locked by an active command.
   */
  commit(changes: ChangeSet): Promise<void>;
  /**
   * Runs `work` so that every write it makes through this store's ports (repositories, the audit log, `commit`)
   * lands together or not at all: on a durable store one transaction, so a crash anywhere inside leaves none of them
   * and a throw out of `work` rolls all of them back; reads inside see the writes made before them. Used where an
   * action and its audit entry must not part (issue #26; decision 144). Keep `work` to store calls, made one after
   * another (no Promise.all), and short: it holds a connection. A nested call joins the outer one as a savepoint.
   * The memory store keeps the same all-or-nothing rule (issue #39 item 7): a throw takes back every write made
   * inside; its scopes run one at a time, and a call from outside waits until the open scope has ended.
   */
  atomically<T>(work: () => Promise<T>): Promise<T>;
}
