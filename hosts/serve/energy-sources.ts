import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { HostConfig } from '../composition/config.js';

/**
 * Energy a USDT sweep needs (tron-facts.md; the node's dry run decides per sweep): to an address that already holds
 * USDT, and to one that holds none (a new storage slot).
 */
export const SWEEP_ENERGY = { holder: 64_285, newHolder: 130_285 } as const;

/** What `serve` logs at start of each energy source (issue #34): one line an operator can act on. */
export interface EnergySourcesReport {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/**
 * What each energy source can do for a sweep, as configured (issue #34): self-delegation from each user's own main
 * address (main addresses are per user, so the stake one sweep needs is what each main address must hold), the
 * configured rental providers, and burning on or off. The stake is sized at the network's ratio now (one node read;
 * left out when the node does not answer).
 */
export async function energySourcesReport(config: HostConfig, chain: Pick<ChainGateway, 'energyPerStakedSun'>): Promise<EnergySourcesReport> {
  const perSun = await chain.energyPerStakedSun().catch(() => null);
  const stakeTrx = (energy: number): number | null => (perSun === null || !(perSun > 0) ? null : Math.ceil((energy * 1.05) / (perSun * 1_000_000)));
  const holder = stakeTrx(SWEEP_ENERGY.holder);
  const fresh = stakeTrx(SWEEP_ENERGY.newHolder);
  const self = holder === null || fresh === null
    ? 'each user\'s main address delegates from its own energy stake (POST /wallets/{main}/stake, resource ENERGY)'
    : `each user's main address delegates from its own energy stake: about ${holder} TRX staked for energy covers one sweep at a time `
      + `(${fresh} TRX when the main address holds no USDT yet) at the network's ratio now (POST /wallets/{main}/stake, resource ENERGY)`;
  const rentals = config.rentalProviders.map((p) => p.kind);
  const rental = rentals.length === 0
    ? 'none configured (ENERGY_PROVIDER=rental with TRONSAVE_API_KEY, or ITRX_API_KEY and ITRX_API_SECRET)'
    : `${rentals.join(', ')}${config.energyRentalMaxPriceSun === null ? '' : ` within ${config.energyRentalMaxPriceSun} SUN a sweep`}`;
  const burn = config.energyBurn
    ? `on (ENERGY_BURN=true${config.energyBurnMaxSun === null ? '' : `, at most ${config.energyBurnMaxSun} SUN a sweep`})`
    : 'off (ENERGY_BURN=false)';
  const fallback = rentals.length === 0 && !config.energyBurn
    ? '; a USDT sweep whose main address cannot delegate its energy is refused (422 BIZ-ENERGY-UNAVAILABLE) and a paid request\'s forward waits'
    : '';
  return {
    fields: {
      energy_self: self, energy_self_stake_trx: holder, energy_rental: rentals, energy_burn: config.energyBurn,
      energy_burn_max_sun: config.energyBurnMaxSun === null ? null : config.energyBurnMaxSun.toString(),
    },
    message: `energy sources: self-delegation: ${self}; rental: ${rental}; burning TRX: ${burn}${fallback}`,
  };
}
