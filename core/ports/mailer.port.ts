/**
 * Which pending registration a verification code confirms (issue #35 item 7): several registrations of one address
 * may be pending, each with its own code, and every one of them mails the address. The mail names its registration
 * so that no two are alike and the person who registered can tell theirs.
 */
export interface RegistrationNotice {
  /** The registration's number: the `user_id` its 201 answer showed the registrant. */
  readonly number: number;
  /** When it was made, ISO 8601 with offset. */
  readonly registeredAt: string;
}

/** A loosening of the withdrawal policy that waits (issue #35 item 3): what the mail to every member with money rights says. */
export interface PolicyChangeNotice {
  readonly changeId: string;
  /** What it loosens: `allow_list_only`, `limits.<SYMBOL>.<field>`, `approval_url`, `approval_secret`. */
  readonly loosens: readonly string[];
  /** When it takes effect unless cancelled (ISO 8601 with offset). */
  readonly effectiveAt: string;
}

/** An invitation to join an account's team (issue #35 item 1): who invites, as what. */
export interface InvitationNotice {
  /** The inviting account's e-mail (its owner's). */
  readonly accountEmail: string;
  readonly role: string;
}

/** Outbound mail. The embedded adapter prints `verification code for <email>: <code>` (after a line naming the registration). */
export interface Mailer {
  /** The code of one pending registration, naming that registration. */
  sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void>;
  /** A password-reset code for a verified account (issue #14); the embedded adapter prints `password reset code for <email>: <code>`. */
  sendPasswordResetCode(email: string, code: string): Promise<void>;
  /**
   * The answer to a reset request for an address with no verified account: no code, a note that nothing was
   * changed. Every reset request mails exactly one message, so neither the answer nor its timing tells who has an
   * account (docs/decisions.md 66).
   */
  sendPasswordResetUnknown(email: string): Promise<void>;
  /**
   * The answer to a registration of an address that a verified account already owns (issue #26 item 6): no code, a
   * note that the address has an account (log in, or reset the password). Registering mails exactly one message
   * either way, so neither the answer nor its timing tells who has an account.
   */
  sendAccountExists(email: string): Promise<void>;
  /**
   * The account locked after too many wrong two-factor codes (issue #35 item 4): a notice to the owner that someone
   * holding the password guessed codes, and that a password reset (a code mailed to this address) unlocks it. The
   * embedded adapter prints `account locked for <email>`.
   */
  sendAccountLocked(email: string): Promise<void>;
  /**
   * A loosening of the withdrawal policy was requested (issue #35 item 3): what it loosens, when it takes effect, and
   * that `POST /policies/changes/{changeId}/cancel` stops it. The embedded adapter prints
   * `policy change <changeId> for <email>: <loosens> takes effect at <effectiveAt> unless cancelled`.
   */
  sendPolicyChangeRequested(email: string, notice: PolicyChangeNotice): Promise<void>;
  /**
   * An invitation to an account's team (issue #35 item 1) with its code, accepted by `POST /auth/register {email,
   * password, invitation_code}`. The embedded adapter prints `invitation code for <email>: <code>` after a line naming
   * the account and the role.
   */
  sendInvitationCode(email: string, code: string, invitation: InvitationNotice): Promise<void>;
  /**
   * Two-factor sign-in was turned on or off for the account (issue #35 item 4, "mail on every security event"): a
   * notice to the owner that, if it was not them, they should reset the password (which, with 2FA on, also requests
   * turning it off after POLICY_CHANGE_DELAY_H). The embedded adapter prints `two-factor <change> for <email>`.
   */
  sendTwoFactorChanged(email: string, change: 'enabled' | 'disabled'): Promise<void>;
}
