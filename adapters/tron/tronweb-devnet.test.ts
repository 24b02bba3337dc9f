/**
 * The ChainGateway contract against the in-process devnet (manual blocks, virtual clock), driven through real
 * tronweb over HTTP on a free port. The devnet serves the pending pool, so `pending` is asserted too, and it is
 * hostile on demand (node faults, quotas, split endpoints, solidified jitter, weight drift, reverting USDT).
 */
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../core/domain/errors.js';
import { describeChainGatewayContract } from '../../contracts-tests/chain-gateway.contract.js';
import { DEVNET_CHAIN_CAPABILITIES, devnetChainSubject } from '../../contracts-tests/harness/tron-devnet.js';
import { TronWebChainGateway } from './tronweb-chain-gateway.js';

describeChainGatewayContract('TronWebChainGateway on the devnet', (opts) => devnetChainSubject(opts), {
  capabilities: DEVNET_CHAIN_CAPABILITIES,
});

describe('TronWebChainGateway on a split devnet without solidityHost (adapter-only: the contract always configures it)', () => {
  it('is a configuration error, reported as a non-transient ChainError, not a silent success', async () => {
    const s = await devnetChainSubject({ splitEndpoints: true });
    try {
      const g = new TronWebChainGateway({ fullHost: s.devnet.url, usdtContract: s.usdtContract, timeoutMs: 5_000 });
      expect((await g.head()).number).toBeGreaterThanOrEqual(0);
      const e = await g.solidifiedHead().then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(ChainError);
      expect(e).toMatchObject({ code: 'CHAIN-NODE-UNAVAILABLE', transient: false, nodeCode: 'HTTP_404' });
    } finally {
      await s.close?.();
    }
  });
});
