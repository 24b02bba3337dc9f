/**
 * The same ChainGateway contract as on the devnet, unchanged, against a real node (e.g. Nile) when configured:
 *   TRON_FULL_HOST=https://nile.trongrid.io TRON_TEST_PRIVATE_KEY=<funded test key> [TRON_API_KEY=…]
 *   [TRON_USDT_CONTRACT=…  (default on Nile: its USDT)] [TRON_PRO_TIER_KEY=…] [TRON_SOLIDITY_HOST=…]
 * The key pays for everything (≈ 400 TRX of funding plus USDT burns per run, and USDT of the configured contract).
 * Without the variables the suite is reported SKIPPED, loudly, never passed.
 */
import { describe, it } from 'vitest';
import { describeChainGatewayContract } from '../../contracts-tests/chain-gateway.contract.js';
import { realNodeCapabilities, realNodeChainSubject, realNodeConfigFromEnv } from '../../contracts-tests/harness/tron-real-node.js';

const SUITE = 'TronWebChainGateway on a real TRON node';
const config = realNodeConfigFromEnv();

if ('skip' in config) {
  console.warn(`SKIPPED: ${SUITE}: ${config.skip} (set TRON_FULL_HOST and TRON_TEST_PRIVATE_KEY)`);
  describe.skip(SUITE, () => {
    it.skip(`needs a real node: ${config.skip} (set TRON_FULL_HOST and TRON_TEST_PRIVATE_KEY)`, () => undefined);
  });
} else {
  describeChainGatewayContract(SUITE, ({ proTier }) => realNodeChainSubject(config, proTier), {
    capabilities: realNodeCapabilities(config),
    // Real blocks: the solidification test alone waits ~20 blocks (a minute).
    timeoutMs: 240_000,
  });
}
