-- Issue #38 item 2: the operator console lists the DEAD webhook deliveries of every user, newest first
-- (WebhookDeliveryRepository.listByStatus); only DEAD ones (status 5, few) are indexed.
CREATE INDEX webhook_deliveries_dead_newest ON webhook_deliveries (created_at DESC, inserted_seq DESC) WHERE status = 5;
