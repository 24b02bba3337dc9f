-- Issue #25: a cashier token's payment request (amount, reference, description, fixed deadline, and the status the
-- worker last announced), as a JSON object written by the shared record codec. NULL: a token without a payment
-- request (every token made before, and every token made without the new fields).
ALTER TABLE cashier_tokens ADD COLUMN payment JSONB
  CONSTRAINT cashier_tokens_payment_is_object CHECK (payment IS NULL OR jsonb_typeof(payment) = 'object');
-- The payment watcher's pass (listWatchedPayments): the open requests, earliest deadline first.
CREATE INDEX cashier_tokens_payment_watched ON cashier_tokens (((payment ->> 'deadline')::bigint), token_no COLLATE "C")
  WHERE (payment ->> 'watched') = 'true';
