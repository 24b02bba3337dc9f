import { timingSafeEqual } from 'node:crypto';
import { addTeamChange, holdNewDestinations, mailPendingChange } from './policy-changes.js';
import { MAX_PENDING_POLICY_CHANGES, pendingChangesOf } from '../domain/policy-change.js';
import { twoFactorOffLoosens } from '../domain/team-changes.js';
import type { PendingPolicyChange } from '../domain/model/withdrawal-policy.js';
import { newSecretToken } from '../domain/cashier-token-rules.js';
import { ConcurrencyConflict, DomainError, validationError } from '../domain/errors.js';
import { formatIsoTime } from '../domain/time.js';
import type { Account } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';
import type { AccountsService, SessionPrincipal } from './application.js';
import { MembersUseCases } from './members.service.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, requireString } from './input.js';
import { Registrations } from './registrations.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { TwoFactorUseCases } from './two-factor.service.js';
import type { LoginView, PasswordResetDoneView, PasswordResetRequestedView, RegisteredView, VerifiedView } from './views.js';

/** A console session's expiry moves later only by at least this much (issue #38): one write a minute at most. */
const SLIDE_STEP_MS = 60_000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD = 8;
/** Long enough for any passphrase, short enough that scrypt input stays cheap to refuse. */
const MAX_PASSWORD = 256;

function parseEmail(fields: Readonly<Record<string, unknown>>): string {
  const email = requireString(fields, 'email', 254).toLowerCase();
  if (!EMAIL.test(email)) throw validationError('email', 'must be an e-mail address');
  return email;
}

function parsePassword(fields: Readonly<Record<string, unknown>>, name = 'password'): string {
  const password = requireString(fields, name, MAX_PASSWORD);
  if ([...password].length < MIN_PASSWORD) throw validationError(name, `must be at least ${MIN_PASSWORD} characters`);
  return password;
}

/** Crockford's base32 (no I, L, O, U): 32 symbols, so a byte's low 5 bits pick one without bias. */
const RESET_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 10 symbols, 50 bits: a reset code hands over the account, so it is far beyond what the attempt limits let anyone guess. */
const RESET_CODE_LENGTH = 10;

/** A typed reset code as compared: case-insensitive, spaces and hyphens ignored (mail clients and people add them). */
function normalizeResetCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The ports the account use cases touch. */
export type AccountsDeps = Pick<ResolvedDeps, 'accounts' | 'sessions' | 'hasher' | 'mailer' | 'clock' | 'ids' | 'settings' | 'auditLog' | 'cipher' | 'totp' | 'uow'>
  & Partial<Pick<ResolvedDeps, 'withdrawalPolicies' | 'apiTokens' | 'members'>>;

/**
 * Registration, e-mail verification, login, session tokens (DESIGN.md "Accounts and session tokens") and the password
 * reset (issue #14).
 */
export class AccountsUseCases implements AccountsService {
  private decoy: Promise<string> | undefined;
  private readonly audit: AuditTrail;
  private readonly registrations: Registrations;
  private readonly twoFactor: TwoFactorUseCases;

  constructor(private readonly deps: AccountsDeps) {
    this.audit = new AuditTrail(deps);
    this.registrations = new Registrations(deps);
    this.twoFactor = new TwoFactorUseCases(deps);
  }

  /**
   * Registers a pending registration and mails it a 6-digit code; never blocked by another pending registration of
   * the e-mail, and answered the same when the e-mail has an account (issue #26 item 6, Registrations).
   */
  async register(body: unknown): Promise<RegisteredView> {
    const fields = fieldsOf(body);
    const email = parseEmail(fields);
    const password = parsePassword(fields);
    // Accepting a team invitation (issue #35 item 1): the code mailed to the address proves it; no verification follows.
    if (fields['invitation_code'] !== undefined && fields['invitation_code'] !== null) {
      const code = requireString(fields, 'invitation_code', 64);
      return new MembersUseCases(this.deps).accept(email, await this.deps.hasher.hashPassword(password), code);
    }
    return this.registrations.register(email, password);
  }

  /**
   * Verifies the pending registration whose code matches; the first verified owns the e-mail (Registrations).
   * body {email, code, password?}: the password of the registration (issue #35 item 7), required while several are pending.
   */
  async verify(body: unknown): Promise<VerifiedView> {
    const fields = fieldsOf(body);
    const email = parseEmail(fields);
    const code = requireString(fields, 'code', 6);
    const password = fields['password'] === undefined || fields['password'] === null ? null : requireString(fields, 'password', MAX_PASSWORD);
    return this.registrations.verify(email, code, password);
  }

  /**
   * One message for an unknown email and a wrong password, so login does not reveal who is registered. With 2FA on,
   * body.totp_code (a current code or a recovery code) is needed too: AUTH-TOTP-REQUIRED, AUTH-TOTP-INVALID.
   */
  async login(body: unknown): Promise<LoginView> {
    const fields = fieldsOf(body);
    const email = requireString(fields, 'email', 254).toLowerCase();
    const password = requireString(fields, 'password', MAX_PASSWORD);
    const account = await this.registrations.accountForLogin(email);
    // An unknown e-mail costs the same scrypt work as a known one, so the answer's timing does not tell them apart.
    const passwordOk = await this.deps.hasher.verifyPassword(password, account?.passwordHash ?? (await this.decoyHash()));
    if (account === null) throw new DomainError('AUTH-INVALID-CREDENTIALS');
    if (!passwordOk || !account.verified) {
      // Recorded only for a registered e-mail (an unknown one has no log); decision 131 on the timing this adds.
      await this.audit.record({ userId: account.id, action: 'auth.login_failed', actor: { kind: 'user', id: null }, detail: { reason: passwordOk ? 'not_verified' : 'password' } });
      throw new DomainError(passwordOk ? 'AUTH-NOT-VERIFIED' : 'AUTH-INVALID-CREDENTIALS');
    }
    const token = newSecretToken('st_', this.deps.ids.randomBytes(this.deps.settings.tokenBytes));
    const tokenHash = this.deps.hasher.hashToken(token);
    // With 2FA on the password alone opens nothing (issue #26 item 3); the accepted code is the session's step-up proof.
    await this.twoFactor.checkLogin(account, fields['totp_code']).catch(async (error: unknown) => {
      await this.audit.record({ userId: account.id, action: 'auth.login_failed', actor: { kind: 'user', id: null }, detail: { reason: 'second_factor' } });
      throw error;
    });
    const now = this.deps.clock.now();
    const expiresAt = now + this.deps.settings.sessionTtlMs;
    await this.audit.recordWith(
      () => this.deps.sessions.create({ tokenHash, userId: account.id, createdAt: now, expiresAt, revokedAt: null }),
      // The signed-in user is the actor (issue #35 item 8: every entry names the acting member, a solo account's too).
      () => ({ userId: account.id, action: 'auth.login', actor: { kind: 'user', id: String(account.id) } }),
    );
    return { session_token: token, expires_at: formatIsoTime(expiresAt), user_id: account.id };
  }

  /**
   * Mails a single-use reset code to a verified account, replacing any earlier one; any other address (unknown,
   * unverified) gets a codeless "no account" mail instead. Either way the answer is the same and one message is sent,
   * so the reply and its timing do not tell who has an account. Only the code's SHA-256 is stored.
   */
  async requestPasswordReset(body: unknown): Promise<PasswordResetRequestedView> {
    const email = parseEmail(fieldsOf(body));
    const account = await this.deps.accounts.findByEmail(email);
    // Drawn and hashed whoever asks: the answers differ in one store write, small beside the mail both send.
    const code = this.newResetCode();
    const codeHash = this.deps.hasher.hashToken(code);
    if (account === null || !account.verified) {
      await this.deps.mailer.sendPasswordResetUnknown(email);
      return {};
    }
    const passwordReset = { codeHash, expiresAt: this.deps.clock.now() + this.deps.settings.passwordResetTtlMs, attempts: 0 };
    // A concurrent write to the account (a counted wrong guess, another request) is re-read; the latest code wins.
    await retryOnConflict(async () => {
      const current = (await this.deps.accounts.findById(account.id)) ?? account;
      await this.deps.accounts.update({ ...current, passwordReset, version: current.version + 1 });
    }, 3);
    await this.deps.mailer.sendPasswordResetCode(account.email, code);
    return {};
  }

  /**
   * Sets a new password (registration's rules) when the code matches, is unexpired, unused and attempts remain; the
   * code is consumed and every session of the user is revoked. Any failure, an unknown e-mail included, is
   * AUTH-RESET-FAILED; a wrong code counts against the code's attempts like a wrong verification code.
   */
  async confirmPasswordReset(body: unknown): Promise<PasswordResetDoneView> {
    const fields = fieldsOf(body);
    const email = parseEmail(fields);
    const code = normalizeResetCode(requireString(fields, 'code', 32));
    const password = parsePassword(fields, 'new_password');
    let newHash: Promise<string> | undefined;
    const hashOnce = (): Promise<string> => (newHash ??= this.deps.hasher.hashPassword(password));
    // Parallel guesses race on the attempt counter as in verify: every judged code is counted, and of parallel right
    // codes exactly one wins (the others re-read a consumed code).
    const { userId, twoFactorOff } = await retryOnConflict(
      () => this.confirmResetOnce(email, code, hashOnce), this.deps.settings.passwordResetMaxAttempts + 1,
    );
    // Again after the change: a login with the old password may have slipped in between the first revocation and it.
    await this.deps.sessions.revokeAllOfUser(userId, this.deps.clock.now());
    if (twoFactorOff !== null) await mailPendingChange(this.deps, twoFactorOff.accountId, twoFactorOff.change);
    return { user_id: userId, email };
  }

  private async confirmResetOnce(
    email: string, code: string, newPasswordHash: () => Promise<string>,
  ): Promise<{ userId: UserId; twoFactorOff: { accountId: UserId; change: PendingPolicyChange } | null }> {
    const account = await this.deps.accounts.findByEmail(email);
    const reset = account?.passwordReset ?? null;
    if (account === null || reset === null || !account.verified || this.deps.clock.now() >= reset.expiresAt
      || reset.attempts >= this.deps.settings.passwordResetMaxAttempts) {
      throw new DomainError('AUTH-RESET-FAILED');
    }
    if (!sameHash(this.deps.hasher.hashToken(code), reset.codeHash)) {
      await this.deps.accounts.update({ ...account, passwordReset: { ...reset, attempts: reset.attempts + 1 }, version: account.version + 1 });
      throw new DomainError('AUTH-RESET-FAILED');
    }
    const passwordHash = await newPasswordHash();
    // The sessions' revocation, the new password (consuming the code) and the audit entry land together (decision
    // 144): a store failure leaves the code usable for a retry, never a changed password with a session alive.
    let marked = 0;
    let twoFactorOff: { accountId: UserId; change: PendingPolicyChange } | null = null;
    await this.audit.recordWith(async () => {
      twoFactorOff = null;
      await this.deps.sessions.revokeAllOfUser(account.id, this.deps.clock.now());
      // The API tokens keep the backend running but are marked for the owner's review (issue #35 item 4).
      marked = (await this.deps.apiTokens?.markAllForReview(account.id, this.deps.clock.now())) ?? 0;
      const standing = (await this.deps.members?.standingOf(account.id)) ?? null;
      const policies = this.deps.withdrawalPolicies;
      // With 2FA on, a reset is also how an owner recovers an account whose authenticator a thief enrolled (issue #35
      // item 4): it requests the 2FA-off pending change below. A member without money rights (a viewer), whose own
      // disable is immediate, has it cleared at once.
      const offAtOnce = account.twoFactor?.enabledAt != null && !twoFactorOffLoosens(standing?.role ?? null);
      // A reset by the owner (through e-mail) lifts a lock of the code-guessing budget (issue #35 item 4).
      const twoFactor = account.twoFactor == null || offAtOnce ? null : { ...account.twoFactor, failedCodes: 0, lockedAt: null };
      await this.deps.accounts.update({ ...account, passwordHash, passwordReset: null, twoFactor, version: account.version + 1 });
      if (policies === undefined) return null;
      const deps = { ...this.deps, withdrawalPolicies: policies };
      // Withdrawals to destinations not on the allow-list wait POLICY_CHANGE_DELAY_H (issue #35 item 3).
      // A member's reset holds the team account's withdrawals, which the member acts on (issue #35 item 1).
      const accountId = standing?.accountId ?? account.id;
      const heldUntil = await holdNewDestinations(deps, accountId, this.deps.clock.now());
      if (twoFactor?.enabledAt != null) {
        // The 2FA-off pending change `users.<id>.two_factor` (decisions 252-253): mailed after the commit, cancellable
        // by whoever holds the authenticator (step-up), carried out by the first login once due. One is enough: a
        // second reset, or a full list of pending changes, adds none (the reset itself never fails for it).
        const pending = pendingChangesOf((await policies.get(accountId))!);
        const already = pending.some((c) => c.team?.kind === 'two_factor_off' && c.team.userId === account.id);
        if (!already && pending.length < MAX_PENDING_POLICY_CHANGES) {
          const change = await addTeamChange(deps, accountId, () => ({ kind: 'two_factor_off', userId: account.id, email: account.email, role: standing?.role ?? 'owner' }));
          twoFactorOff = { accountId, change };
        }
      }
      return heldUntil;
    }, (heldUntil) => ({
      userId: account.id, action: 'auth.password_reset', actor: { kind: 'user', id: null },
      detail: { api_tokens_marked_for_review: marked, ...(heldUntil === null ? {} : { new_destinations_held_until: formatIsoTime(heldUntil) }) },
    }));
    return { userId: account.id, twoFactorOff };
  }

  async logout(sessionToken: string): Promise<void> {
    await this.deps.sessions.revoke(this.deps.hasher.hashToken(sessionToken), this.deps.clock.now());
  }

  async slideSession(sessionToken: string, idleMs: number): Promise<number | null> {
    if (!sessionToken.startsWith('st_')) return null;
    const tokenHash = this.deps.hasher.hashToken(sessionToken);
    const session = await this.deps.sessions.findByTokenHash(tokenHash);
    const now = this.deps.clock.now();
    if (session === null || session.revokedAt !== null || now >= session.expiresAt) return null;
    const target = Math.min(session.createdAt + this.deps.settings.sessionTtlMs, now + idleMs);
    if (target > session.expiresAt && target - session.expiresAt < SLIDE_STEP_MS) return session.expiresAt;
    if (target === session.expiresAt) return target;
    await this.deps.sessions.setExpiry(tokenHash, target);
    return target;
  }

  async sessionUser(sessionToken: string): Promise<{ userId: UserId; email: string; twoFactorOn: boolean; expiresAt: number } | null> {
    if (!sessionToken.startsWith('st_')) return null;
    const session = await this.deps.sessions.findByTokenHash(this.deps.hasher.hashToken(sessionToken));
    if (session === null || session.revokedAt !== null || this.deps.clock.now() >= session.expiresAt) return null;
    const own = await this.deps.accounts.findById(session.userId);
    return own === null ? null : { userId: own.id, email: own.email, twoFactorOn: own.twoFactor?.enabledAt != null, expiresAt: session.expiresAt };
  }

  /**
   * The principal of a live session. In an account with members (issue #35 item 1) a member's session acts on the
   * account (its owner's user id) and names the member, its role and whether it has 2FA on; a solo owner's session is
   * the owner, as before.
   */
  async authenticateSession(sessionToken: string): Promise<SessionPrincipal | null> {
    if (!sessionToken.startsWith('st_')) return null;
    const session = await this.deps.sessions.findByTokenHash(this.deps.hasher.hashToken(sessionToken));
    if (session === null || session.revokedAt !== null || this.deps.clock.now() >= session.expiresAt) return null;
    const standing = this.deps.members === undefined ? null : await this.deps.members.standingOf(session.userId);
    if (standing === null) return { userId: session.userId };
    const own = await this.deps.accounts.findById(session.userId);
    return { userId: standing.accountId, member: { userId: session.userId, role: standing.role, twoFactorOn: own?.twoFactor?.enabledAt != null } };
  }

  /**
   * Deletes every pending registration unverifiedAccountTtlMs after registering (the worker's hourly job, issue #14);
   * returns how many. Nothing hangs off them, as they never logged in, and none holds its e-mail (issue #26 item 6).
   * One verified meanwhile is kept (the store judges each atomically).
   */
  async expireUnverifiedAccounts(): Promise<number> {
    // Expired from createdAt + ttl on, so the cut-off includes that millisecond.
    return this.deps.accounts.deleteUnverifiedCreatedBefore(this.deps.clock.now() - this.deps.settings.unverifiedAccountTtlMs + 1);
  }

  /** A real scrypt hash of a random secret, made once: what an unknown e-mail's password is checked against. */
  private decoyHash(): Promise<string> {
    this.decoy ??= this.deps.hasher.hashPassword(Buffer.from(this.deps.ids.randomBytes(16)).toString('hex'));
    return this.decoy;
  }

  /** RESET_CODE_LENGTH uniformly random symbols of RESET_ALPHABET from the IdGenerator's bytes. */
  private newResetCode(): string {
    return [...this.deps.ids.randomBytes(RESET_CODE_LENGTH)].map((byte) => RESET_ALPHABET[byte & 31]).join('');
  }
}
