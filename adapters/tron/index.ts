/**
 * Public entry point of the TRON adapter (package export "./adapters/tron"): the ChainGateway and the BlockSource
 * through tronweb, the EnergyProviders (self-delegation; TronSave, itrx and the rental market over them), and the
 * pure JSON mappings a caller may reuse (e.g. to read a node's replies itself).
 * The wire-level helpers (intent building, error mapping) stay internal to this folder.
 */
export {
  TronWebChainGateway,
  DEFAULT_FEE_LIMIT_SUN,
  USDT_TRANSFER_ENERGY_TO_HOLDER,
  USDT_TRANSFER_ENERGY_TO_NEW_HOLDER,
  type ReferenceBlock,
  type TronWebChainGatewayOptions,
} from './tronweb-chain-gateway.js';
export { createDevnetChainGateway, type DevnetEndpoint } from './devnet-chain-gateway.js';
export { CachingChainGateway, type CachingChainGatewayOptions } from './caching-chain-gateway.js';
export { TronBlockSource, type TronBlockSourceOptions } from './tron-block-source.js';
export {
  SelfDelegationEnergyProvider,
  selfDelegationSun,
  withMargin,
  DEFAULT_DELEGATION_MARGIN_BPS,
  type SelfDelegationEnergyProviderOptions,
} from './self-delegation-energy-provider.js';
export { TronSaveEnergyProvider, type TronSaveEnergyProviderOptions } from './rental-tronsave-energy-provider.js';
export { ItrxEnergyProvider, itrxSignature, type ItrxEnergyProviderOptions, type ItrxPeriod } from './rental-itrx-energy-provider.js';
export { RentalMarketEnergyProvider, type RentalMarketOptions } from './rental-market.js';
export type { RentalEnergySource, RentalHttpOptions } from './rental-http.js';
export {
  FREE_BANDWIDTH_PER_DAY,
  toChainResources,
  toTransactionState,
  energyPerSun,
  readDryRun,
  type DryRun,
  type DryRunJson,
  type AccountJson,
  type AccountResourceJson,
  type TransactionInfoJson,
} from './tron-views.js';
export { toPortError, parseRetryAfter, type CallKind } from './tron-errors.js';
