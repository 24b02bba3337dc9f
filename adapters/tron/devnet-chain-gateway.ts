/**
 * Convenience wiring of the gateway to a local devnet (the dev host and the tests). Takes the devnet's shape,
 * not its class, so this adapter does not depend on the simulator's code.
 */
import { TronWebChainGateway, type TronWebChainGatewayOptions } from './tronweb-chain-gateway.js';

/** What the gateway needs from a running devnet (adapters/tron-devnet `Devnet` satisfies it). */
export interface DevnetEndpoint {
  readonly url: string;
  /** Where the devnet serves /walletsolidity/* when it splits the endpoints like a self-hosted java-tron. */
  readonly solidityUrl?: string;
  readonly usdtAddress: string;
}

/** A TronWebChainGateway on `devnet` (its solidity endpoint too), with short timeouts (a local node answers in milliseconds or not at all). */
export function createDevnetChainGateway(
  devnet: DevnetEndpoint,
  options: Partial<Omit<TronWebChainGatewayOptions, 'fullHost' | 'usdtContract'>> = {},
): TronWebChainGateway {
  return new TronWebChainGateway({
    timeoutMs: 5_000,
    ...(devnet.solidityUrl === undefined ? {} : { solidityHost: devnet.solidityUrl }),
    ...options,
    fullHost: devnet.url,
    usdtContract: devnet.usdtAddress,
  });
}
