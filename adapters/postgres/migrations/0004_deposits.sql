-- Deposit records written by the balance scanner (issue #24). One record per transfer: (network_code, transfer_id) is
-- unique, so a rescan, a restart or a second scanner finds the record instead of writing another. Times are BIGINT
-- epoch milliseconds; `amount` is an exact integer (NUMERIC(78, 0) holds any uint256); `inserted_seq` orders rows of
-- equal time by insertion, as the other stores do.

CREATE TABLE deposits (
  deposit_id     TEXT PRIMARY KEY,
  transfer_id    TEXT NOT NULL,
  user_id        BIGINT NOT NULL,
  address        TEXT NOT NULL,
  network_code   TEXT NOT NULL,
  asset_symbol   TEXT NOT NULL,
  amount         NUMERIC(78, 0) NOT NULL,
  from_address   TEXT NOT NULL,
  txid           TEXT NOT NULL,
  block_number   BIGINT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'reverted')),
  detected_at    BIGINT NOT NULL,
  confirmed_at   BIGINT,
  version        INTEGER NOT NULL,
  inserted_seq   BIGSERIAL NOT NULL,
  CONSTRAINT deposits_transfer_unique UNIQUE (network_code, transfer_id)
);
-- GET /deposits (and its filters, which narrow one user's rows) and GET /wallets/{address}/deposits.
CREATE INDEX deposits_by_user_newest ON deposits (user_id, detected_at DESC, inserted_seq DESC);
CREATE INDEX deposits_by_address_newest ON deposits (address, detected_at DESC, inserted_seq DESC);
-- The scanner's check of pending records once their height is final (listPendingUpTo).
CREATE INDEX deposits_pending_by_block ON deposits (network_code, block_number, deposit_id COLLATE "C") WHERE status = 'pending';
