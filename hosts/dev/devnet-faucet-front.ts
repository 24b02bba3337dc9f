import type { H3 } from 'h3';
import type { Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { devFront } from './dev-front.js';
import { DevnetFaucet, httpDevnetMint } from './devnet-faucet.js';

/** The HTTP app a production entry serves, and the faucet in front of it when there is one. */
export interface FrontedApi {
  readonly h3: H3;
  /** Set on CHAIN=devnet only. */
  readonly faucet: DevnetFaucet | null;
}

/**
 * The API of `npm run serve` and `npm run api`. On CHAIN=devnet the faucet (`POST /dev/faucet`) stands in front: it
 * pays with signed transfers from its own account, minted on the devnet at TRON_FULL_HOST through its `/sim/fund`
 * routes, so what it pays is a real transaction the balance scanner sees. On any other chain the API alone, where
 * `/dev/faucet` is an unknown route (404 NOT-FOUND).
 */
export async function frontedApi(composition: Composition): Promise<FrontedApi> {
  const c = composition.container;
  const config = c.get(TOKENS.Config);
  const api = c.get(TOKENS.ApiHost).h3;
  if (config.chain !== 'devnet') return { h3: api, faucet: null };
  const faucet = await DevnetFaucet.open(c.get(TOKENS.Chain), httpDevnetMint(config.tronFullHost), config.usdtContract);
  return { h3: devFront(api, { faucet, logger: c.get(TOKENS.Logger) }), faucet };
}
