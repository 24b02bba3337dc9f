import type { LedgerBalance } from './ledger.js';

/**
 * One asset's line of a statement (issue #36), in the custodial accounts' view: what the user's addresses held at the
 * start, what came in from outside, what the chain's fees cost, what went outside, and what they held at the end.
 * `closing = opening + received - costs - sent` holds whenever every transaction sums to zero per asset.
 */
export interface StatementLine {
  readonly assetSymbol: string;
  readonly opening: bigint;
  readonly received: bigint;
  readonly costs: bigint;
  readonly sent: bigint;
  readonly closing: bigint;
  /**
   * Of `received`, what energy providers' prepaid balances paid for the user off chain (the rentals, which `costs`
   * counts as energy rental): minus the change of the `provider_prepaid` accounts.
   */
  readonly prepaid: bigint;
}

/**
 * The statement between two balance reads of every account (LedgerPort.balancesAt): `before` just before the period
 * (at `from` - 1 ms), `after` at its end. Each total is one account kind's change over the period, so it equals the sum
 * of that kind's entries in the period (each entry's balance is the previous one plus its amount):
 * - opening, closing: the custodial accounts' balances;
 * - received: minus the change of `external_in` (its balance is minus everything brought in; a reversal gives back)
 *   and of `provider_prepaid` (an energy rental is paid from outside the addresses, off chain, by a provider's prepaid
 *   balance: it is a cost the addresses did not pay), the latter also alone as `prepaid`;
 * - costs: the change of the fee accounts (TRX burned, bandwidth, energy rental);
 * - sent: the change of `external_out`.
 * Moves between custodial addresses (a sweep's transfer, its funding) change none of the totals. Networks of the same
 * asset symbol add up. Lines are ordered by asset symbol; `assets` (when given) are listed even without any entry.
 */
export function statementOf(before: readonly LedgerBalance[], after: readonly LedgerBalance[], assets?: readonly string[]): StatementLine[] {
  const lines = new Map<string, { opening: bigint; received: bigint; costs: bigint; sent: bigint; closing: bigint; prepaid: bigint }>();
  const line = (asset: string) => {
    let found = lines.get(asset);
    if (found === undefined) {
      found = { opening: 0n, received: 0n, costs: 0n, sent: 0n, closing: 0n, prepaid: 0n };
      lines.set(asset, found);
    }
    return found;
  };
  for (const asset of assets ?? []) line(asset);
  const add = (balances: readonly LedgerBalance[], sign: 1n | -1n): void => {
    for (const { account, balance } of balances) {
      if (assets !== undefined && !assets.includes(account.assetSymbol)) continue;
      const l = line(account.assetSymbol);
      switch (account.kind) {
        // What an address holds: liquid, staked or unstaking (a stake moves TRX between them, not out).
        case 'custodial': case 'staked': case 'unstaking':
          if (sign === 1n) l.closing += balance;
          else l.opening += balance;
          break;
        case 'external_in': l.received -= sign * balance; break;
        case 'provider_prepaid': l.received -= sign * balance; l.prepaid -= sign * balance; break;
        case 'external_out': l.sent += sign * balance; break;
        case 'fee_trx_burned': case 'fee_bandwidth': case 'fee_energy_rental': l.costs += sign * balance; break;
      }
    }
  };
  add(before, -1n);
  add(after, 1n);
  return [...lines].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([assetSymbol, l]) => ({ assetSymbol, ...l }));
}
