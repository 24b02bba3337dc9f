-- Issue #26 item 6: an e-mail belongs to whoever proves the mailbox. Only a verified account owns its e-mail; any number
-- of pending registrations (unverified accounts) may name it, and none blocks another. Existing unverified accounts
-- simply become pending registrations.
ALTER TABLE accounts DROP CONSTRAINT accounts_email_key_unique;
CREATE UNIQUE INDEX accounts_verified_email_unique ON accounts (email_key) WHERE verified;
-- The pending registrations of an e-mail, oldest first (verify compares a code against each).
CREATE INDEX accounts_pending_by_email ON accounts (email_key, created_at) WHERE NOT verified;

-- Issue #26 item 3: TOTP two-factor, as one JSONB value that no query reads (the secret inside is a KeyCipher
-- envelope; recovery codes are SHA-256 hashes). NULL: never set up, or disabled.
ALTER TABLE accounts ADD COLUMN two_factor JSONB;
