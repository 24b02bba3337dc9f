-- Issue #36: the energy rental price is booked. An energy rental provider's prepaid balance, which pays rentals off
-- chain, is a new ledger account kind; its holder (the provider's name) sits in `address`, so a second provider adds
-- rows. The kinds are checked as before.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('custodial', 'fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental', 'external_in', 'external_out', 'staked', 'unstaking',
                  'provider_prepaid'));
