-- Issue #35 item 1: an account's team members. A row is an invitation (user_id NULL, invitation_hash set) until the
-- invitee registers with its code; account_id is the owner's user id, which owns every resource a member acts on.
CREATE TABLE account_members (
  id BIGINT PRIMARY KEY,
  account_id BIGINT NOT NULL,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'approver', 'operator', 'viewer')),
  invitation_hash TEXT,
  invited_at BIGINT NOT NULL,
  user_id BIGINT UNIQUE,
  joined_at BIGINT,
  UNIQUE (account_id, email)
);
CREATE INDEX account_members_invitation ON account_members (email) WHERE user_id IS NULL;
