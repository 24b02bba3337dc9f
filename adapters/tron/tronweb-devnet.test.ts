/**
 * The ChainGateway contract against the in-process devnet (manual blocks, virtual clock), driven through real
 * tronweb over HTTP on a free port. The devnet serves the pending pool, so `pending` is asserted too.
 */
import { describeChainGatewayContract } from '../../contracts-tests/chain-gateway.contract.js';
import { DEVNET_CHAIN_CAPABILITIES, devnetChainSubject } from '../../contracts-tests/harness/tron-devnet.js';

describeChainGatewayContract('TronWebChainGateway on the devnet', ({ proTier }) => devnetChainSubject(proTier), {
  capabilities: DEVNET_CHAIN_CAPABILITIES,
});
