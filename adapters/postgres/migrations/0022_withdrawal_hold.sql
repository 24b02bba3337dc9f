-- Issue #35 item 3: after a password reset or a two-factor change, withdrawals to destinations not on the allow-list
-- are held until held_until (POLICY_CHANGE_DELAY_H later). NULL: no hold.
ALTER TABLE withdrawal_policies ADD COLUMN held_until BIGINT;
