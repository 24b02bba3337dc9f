import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createAssetRegistry } from './assets.js';
import { MAINNET_USDT_CONTRACT } from './model/asset.js';

const registry = createAssetRegistry({ usdtContract: MAINNET_USDT_CONTRACT });

describe('asset registry', () => {
  it('knows TRON and nothing else, matched exactly', () => {
    expect(registry.network('TRON')).toBe('TRON');
    for (const code of ['tron', 'Tron', 'ETH', '', ' TRON']) expect(registry.network(code)).toBeNull();
  });

  it('lists TRX (native, no contract) then USDT (trc20, the configured contract), both 6 decimals', () => {
    expect(registry.list('TRON')).toEqual([
      { networkCode: 'TRON', symbol: 'TRX', kind: 'native', decimals: 6, contractAddress: null },
      { networkCode: 'TRON', symbol: 'USDT', kind: 'trc20', decimals: 6, contractAddress: MAINNET_USDT_CONTRACT },
    ]);
  });

  it('uses the deployment contract for USDT', () => {
    expect(createAssetRegistry({ usdtContract: 'TDevnetUsdt' }).find('TRON', 'USDT')?.contractAddress).toBe('TDevnetUsdt');
  });

  it('finds symbols case-sensitively and nothing else', () => {
    expect(registry.find('TRON', 'TRX')?.kind).toBe('native');
    expect(registry.find('TRON', 'USDT')?.kind).toBe('trc20');
    fc.assert(fc.property(fc.string(), (symbol) => {
      const found = registry.find('TRON', symbol);
      if (symbol === 'TRX' || symbol === 'USDT') expect(found?.symbol).toBe(symbol);
      else expect(found).toBeNull();
    }));
    expect(registry.find('TRON', 'usdt')).toBeNull();
  });

  it('hands out copies of the list, so callers cannot change the registry', () => {
    const list = registry.list('TRON');
    list.pop();
    expect(registry.list('TRON')).toHaveLength(2);
  });
});
