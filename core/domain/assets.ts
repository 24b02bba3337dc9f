import type { Asset } from './model/asset.js';
import type { NetworkCode } from './model/common.js';

/** The networks and assets this deployment supports (spec §1: TRON with TRX and USDT-TRC20). */
export interface AssetRegistry {
  /** The network for a wire `network_code`, or null (BIZ-NETWORK-NOT-FOUND). Exact match: `TRON`. */
  network(code: string): NetworkCode | null;
  /** The asset for a wire `asset_symbol`, or null (BIZ-ASSET-NOT-FOUND). Exact, case-sensitive match. */
  find(network: NetworkCode, symbol: string): Asset | null;
  /** Every asset of the network, native first. */
  list(network: NetworkCode): Asset[];
}

/** TRX and USDT both have 6 decimals (spec §1: 1 TRX = 1,000,000 SUN; USDT has 6 decimal places). */
const TRON_DECIMALS = 6;

/**
 * Builds the registry. Symbols and network codes match exactly as the spec writes them (`TRON`, `TRX`, `USDT`):
 * case-insensitive matching would make `usdt` and `USDT` two spellings of one key in idempotency hashes,
 * min_collect_amounts and webhook payloads, so a lower-case symbol is simply unknown.
 * `usdtContract` is per deployment: mainnet (MAINNET_USDT_CONTRACT) or the devnet's own contract.
 */
export function createAssetRegistry(options: { usdtContract: string }): AssetRegistry {
  const tron: readonly Asset[] = Object.freeze([
    Object.freeze({ networkCode: 'TRON', symbol: 'TRX', kind: 'native', decimals: TRON_DECIMALS, contractAddress: null }),
    Object.freeze({ networkCode: 'TRON', symbol: 'USDT', kind: 'trc20', decimals: TRON_DECIMALS, contractAddress: options.usdtContract }),
  ] satisfies Asset[]);
  const byNetwork: ReadonlyMap<NetworkCode, readonly Asset[]> = new Map([['TRON', tron]]);
  return {
    network: (code) => (code === 'TRON' ? 'TRON' : null),
    find: (network, symbol) => byNetwork.get(network)?.find((asset) => asset.symbol === symbol) ?? null,
    list: (network) => [...(byNetwork.get(network) ?? [])],
  };
}
