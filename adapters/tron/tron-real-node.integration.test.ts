/**
 * The same ChainGateway contract as on the devnet, unchanged, against a real node (e.g. Nile) when configured:
 *   TRON_FULL_HOST=https://nile.trongrid.io TRON_TEST_PRIVATE_KEY=<funded test key> [TRON_API_KEY=…]
 *   [TRON_USDT_CONTRACT=…  (default on Nile: its USDT)] [TRON_PRO_TIER_KEY=…] [TRON_SOLIDITY_HOST=…]
 * The key pays for everything: a run needs ≈ 800 TRX and 12 USDT of the configured contract (checked up front);
 * the energy suite also needs the key to have TRX staked for ENERGY (it delegates from it and takes it back).
 * Without the variables the suite is reported SKIPPED, loudly, never passed.
 */
import { describeChainGatewayContract } from '../../contracts-tests/chain-gateway.contract.js';
import { describeEnergyProviderContract } from '../../contracts-tests/energy-provider.contract.js';
import { describeUnless } from '../../contracts-tests/support/skipped.js';
import {
  realNodeCapabilities, realNodeChainShortfall, realNodeChainSubject, realNodeConfigFromEnv, realNodeEnergyShortfall,
  realNodeEnergySubject,
} from '../../contracts-tests/harness/tron-real-node.js';

const SUITE = 'TronWebChainGateway on a real TRON node';
const ENERGY_SUITE = 'SelfDelegationEnergyProvider on a real TRON node';
/** Small, so that a test key with a modest energy stake can run the energy suite. */
const ENERGY = 1_000;
const HINT = '(set TRON_FULL_HOST and TRON_TEST_PRIVATE_KEY)';
const config = realNodeConfigFromEnv();

function skipLoudly(suite: string, reason: string): void {
  describeUnless(`needs a real node: ${reason} ${HINT}`, suite, () => undefined);
}

if ('skip' in config) {
  skipLoudly(SUITE, config.skip);
  skipLoudly(ENERGY_SUITE, config.skip);
} else {
  const unpaid = await realNodeChainShortfall(config);
  if (unpaid) skipLoudly(SUITE, unpaid);
  else {
    describeChainGatewayContract(SUITE, ({ proTier }) => realNodeChainSubject(config, proTier), {
      capabilities: realNodeCapabilities(config),
      // Real blocks: the solidification test alone waits ~20 blocks (a minute).
      timeoutMs: 240_000,
    });
  }
  const shortfall = await realNodeEnergyShortfall(config, ENERGY);
  if (shortfall) skipLoudly(ENERGY_SUITE, shortfall);
  else describeEnergyProviderContract(ENERGY_SUITE, () => realNodeEnergySubject(config), { energy: ENERGY, maxBlocks: 10, timeoutMs: 120_000 });
}
