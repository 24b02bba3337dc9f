-- Issue #36: staking is booked. An address's staked and unstaking TRX are two new ledger account kinds (each with the
-- address, like `custodial`); the kinds are checked as before.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('custodial', 'fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental', 'external_in', 'external_out', 'staked', 'unstaking'));
