/**
 * Test controls (/sim/*) and the simulated rental providers' APIs (TronSave's /v2/*, itrx's /api/v1/frontend/*), as
 * control routes for the HTTP server. Every /sim route mirrors an in-process method of {@link Devnet}.
 */
import { toHex41 } from './codec.js';
import type { DevnetNode } from './devnet-node.js';
import type { Devnet } from './index.js';
import type { ControlRoute } from './server.js';

type Json = Record<string, unknown>;

const post =
  (fn: (q: Json) => unknown, status = 200): ControlRoute =>
  (q, method) =>
    method === 'POST' ? [status, fn(q)] : [405, { error: 'use POST' }];

const addressHex = (x: unknown): string => {
  if (typeof x !== 'string') throw new Error('address must be a string');
  return toHex41(x);
};

const count = (x: unknown, name: string): number => {
  const n = Number(x);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
};

/** Builds the control route table for a devnet. */
export function controlRoutes(devnet: Devnet): Record<string, ControlRoute> {
  return {
    '/sim/info': () => [200, devnet.info()],
    '/sim/calls': () => [200, devnet.nodeCalls()],
    '/sim/fund': post((q) => {
      devnet.fund(String(q['address']), Number(q['amount_sun']));
      return { ok: true, ...devnet.info() };
    }),
    '/sim/fund_token': post((q) => {
      const amount = q['amount'];
      if (typeof amount !== 'number' && typeof amount !== 'string') throw new Error('amount is required');
      devnet.fundToken(String(q['address']), BigInt(amount));
      return { ok: true };
    }),
    '/sim/mine': post((q) => {
      devnet.mine(count(q['blocks'] ?? 1, 'blocks'));
      return devnet.info();
    }),
    '/sim/maintenance': post(() => {
      devnet.toMaintenance();
      return devnet.info();
    }),
    '/sim/advance': post((q) => {
      devnet.advance(count(q['ms'], 'ms'));
      return devnet.info();
    }),
    '/sim/params': (q, method) => {
      if (method !== 'POST') return [200, devnet.chain.params];
      const p: Json = { ...q };
      // Friendly aliases for the parameters tests change most.
      if (p['energy_fee'] !== undefined) p['energyFee'] = p['energy_fee'];
      if (p['solidify_lag'] !== undefined) p['solidifyLag'] = p['solidify_lag'];
      if (p['usdt_energy_factor'] !== undefined) p['usdtEnergyFactor'] = p['usdt_energy_factor'];
      delete p['energy_fee'];
      delete p['solidify_lag'];
      delete p['usdt_energy_factor'];
      return [200, devnet.setParams(p as Parameters<Devnet['setParams']>[0])];
    },
    '/sim/usdt': (q, method) => {
      if (method !== 'POST') return [200, devnet.usdtStatus()];
      // Validate everything first, so a bad request changes nothing.
      const paused = q['paused'];
      if (paused !== undefined && typeof paused !== 'boolean') throw new Error('paused must be a boolean');
      const black = q['blacklist'] === undefined ? undefined : addressHex(q['blacklist']);
      const white = q['unblacklist'] === undefined ? undefined : addressHex(q['unblacklist']);
      if (black) devnet.setUsdtBlacklisted(black, true);
      if (white) devnet.setUsdtBlacklisted(white, false);
      if (paused !== undefined) devnet.setUsdtPaused(paused);
      return [200, devnet.usdtStatus()];
    },
    '/sim/faults': nodeFaultsRoute(devnet.nodes[0]!),
    '/sim/reorg': post((q) => {
      const keep = q['keep'] ?? 'all';
      if (keep !== 'all' && keep !== 'none') throw new Error('keep must be "all" or "none"');
      const length = q['length'] === undefined ? undefined : count(q['length'], 'length');
      return { ...devnet.reorg(count(q['depth'], 'depth'), { keep, ...(length === undefined ? {} : { length }) }), ...devnet.info() };
    }),
    '/sim/rental': (q, method) => [200, method === 'POST' ? devnet.configureRental(q) : devnet.configureRental({})],
    ...devnet.tronsave.routes(),
    ...devnet.itrx.routes(),
  };
}

/** GET/POST /sim/faults of one node endpoint (node 0: the devnet's faults, chain-wide ones included). */
export function nodeFaultsRoute(node: DevnetNode): ControlRoute {
  return (q, method) => [200, method === 'POST' ? node.setFaults(q) : node.faults()];
}
