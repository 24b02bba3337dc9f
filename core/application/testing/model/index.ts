/**
 * The model-based test kit of the use-case layer (core-only, so it runs against any adapter set): a hand-written
 * reference model, fc.AsyncCommand-shaped commands that drive the Application and compare it with the model, the
 * invariant check run after every step, and a worker-style helper that finishes a collection task.
 * The memory wiring and the arbitraries live in core/application/use-cases.model.test.ts.
 */
export { GetBalancesCommand, ScanBalanceCommand, SetMinimumsCommand } from './balance-commands.js';
export {
  BogusTokenCommand, CashierCollectCommand, CreateTokenCommand, DisableTokenCommand, UseTokenCommand,
} from './cashier-commands.js';
export {
  CancelCollectionCommand, CreateCollectionCommand, FinishCollectionCommand, GetCollectionCommand, RiskCommand,
  RunExecutorCommand,
} from './collection-commands.js';
export { finishCollection, type FinishDeps } from './finish-collection.js';
export {
  assertBalanceItems, assertInvariants, expectFailure, expectOk, expectSameAsMissing, instant, outcome, shown,
  taskStatusNumber, type ModelClock, type ModelSystem, type Outcome,
} from './model-system.js';
export {
  MODEL_ASSETS, MODEL_NETWORK, MODEL_PLAN_QUOTAS, UseCaseModel,
  type Caller, type ModelPlan, type ModelTask, type ModelToken, type ModelTokenState, type ModelUser, type ModelWallet,
} from './reference-model.js';
export {
  ActivatePlanCommand, AdvanceClockCommand, CreateWalletCommand, GetWalletCommand, SetQuotaCommand, type ModelCommand,
} from './wallet-commands.js';
