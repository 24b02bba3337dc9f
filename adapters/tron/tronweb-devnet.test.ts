/**
 * The ChainGateway and EnergyProvider contracts against the in-process devnet (manual blocks, virtual clock),
 * driven through real tronweb over HTTP on a free port.
 */
import { describeChainGatewayContract, type ChainGatewaySubject } from '../../contracts-tests/chain-gateway.contract.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';

async function devnetSubject(proTier: boolean): Promise<ChainGatewaySubject & { devnet: Devnet }> {
  const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'tron-adapter-tests' });
  const info = devnet.info();
  return {
    devnet,
    gateway: createDevnetChainGateway(devnet, proTier ? { proTierKey: 'devnet-pro-key' } : {}),
    usdtContract: devnet.usdtAddress,
    solidifyLag: devnet.chain.params.solidifyLag,
    witnesses: info.witnesses,
    faucet: {
      fundTrx: async (address, sun) => devnet.fund(address, Number(sun)),
      fundToken: async (address, amount) => devnet.fundToken(address, amount),
      mine: async (blocks) => void devnet.mine(blocks),
      advance: async (ms) => void devnet.advance(ms),
      setNodeDown: async (down) => void devnet.setFaults({ node_down: down }),
    },
    close: () => devnet.close(),
  };
}

describeChainGatewayContract('TronWebChainGateway on the devnet', ({ proTier }) => devnetSubject(proTier), {
  capabilities: { virtualTime: true, faults: true, exactFees: true, pendingVisible: false, voting: true },
});
