import type { NetworkCode } from './common.js';

export type AssetKind = 'native' | 'trc20';

export interface Asset {
  readonly networkCode: NetworkCode;
  readonly symbol: string;
  readonly kind: AssetKind;
  readonly decimals: number;
  /** TRC20 contract address (base58); null for the native asset. Configurable per deployment (devnet vs mainnet). */
  readonly contractAddress: string | null;
}

/** Mainnet USDT-TRC20 contract; deployments override it (the devnet has its own). */
export const MAINNET_USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
