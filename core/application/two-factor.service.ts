import { DomainError } from '../domain/errors.js';
import { addTeamChange, holdNewDestinations, mailPendingChange, settledPolicy } from './policy-changes.js';
import { pendingChangesOf } from '../domain/policy-change.js';
import { twoFactorOffLoosens } from '../domain/team-changes.js';
import { changeView, type PolicyChangeView } from './withdrawal-policies.service.js';
import type { Account, TwoFactor } from '../domain/model/account.js';
import type { AuditAction, AuditEvent } from '../domain/model/audit.js';
import type { PendingPolicyChange } from '../domain/model/withdrawal-policy.js';
import type { UserId } from '../domain/model/common.js';
import { newSecretToken } from '../domain/cashier-token-rules.js';
import { formatIsoTime } from '../domain/time.js';
import {
  afterWrongCode, codeServes, formatRecoveryCode, isEnabled, isLocked, matchTotp, parseCode, proofReusable, RECOVERY_ALPHABET,
  RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH, recoveryIndex, type StepUpGrant, type TypedCode,
} from '../domain/two-factor-rules.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, requireString } from './input.js';
import { retryOnConflict } from './retry-on-conflict.js';

/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Custody Hub';

/** The ports two-factor touches. */
export type TwoFactorDeps = Pick<ResolvedDeps, 'accounts' | 'cipher' | 'totp' | 'hasher' | 'clock' | 'ids' | 'auditLog' | 'uow' | 'sessions' | 'settings' | 'mailer'>
  & Partial<Pick<ResolvedDeps, 'withdrawalPolicies' | 'members'>>;

/**
 * Counts one try of a code against the caller's code-try limit (the API host's, shaped like the login throttle) and
 * throws RATE-LIMITED when it is spent. Called before a code is judged, never for a step-up proof reused as is.
 */
export type CodeTryGate = () => Promise<void>;

export interface TwoFactorSetupView {
  /** The `otpauth://totp/...` URI to enrol an authenticator app with (the host adds its QR code). */
  readonly otpauth_uri: string;
}

export interface TwoFactorEnabledView {
  /** The 10 single-use recovery codes, shown only in this answer. */
  readonly recovery_codes: readonly string[];
}

export interface TwoFactorDisabledView {
  readonly enabled: false;
  /** Every session of the account was ended (issue #35 item 4); this is the caller's new one. */
  readonly session_token: string;
  readonly expires_at: string;
}

/** TOTP two-factor and the step-up check (issue #26 item 3). */
export interface TwoFactorService {
  /** Draws a secret and answers its otpauth:// URI; AUTH-2FA-ALREADY-ENABLED when on. */
  setup(userId: UserId): Promise<TwoFactorSetupView>;
  /** body {password, code}: confirms the setup and answers the recovery codes once. */
  enable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorEnabledView>;
  /** body {password, code} (a code or a recovery code): turns 2FA off and ends every session, answering a new one. */
  disable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorDisabledView | PolicyChangeView>;
  /** Passes for `grant`, or throws AUTH-STEP-UP-REQUIRED / AUTH-STEP-UP-INVALID / AUTH-ACCOUNT-LOCKED; a no-op without 2FA. */
  stepUp(userId: UserId, sessionToken: string, code: string | null, gate: CodeTryGate, grant: StepUpGrant): Promise<void>;
}

/** What a code was accepted for: which error a refusal is, and whether the session gets a step-up proof. */
type Purpose = 'login' | 'step-up' | 'enable' | 'disable';

const INVALID: Record<Purpose, 'AUTH-TOTP-INVALID' | 'AUTH-STEP-UP-INVALID'> = {
  'login': 'AUTH-TOTP-INVALID', 'step-up': 'AUTH-STEP-UP-INVALID', 'enable': 'AUTH-TOTP-INVALID', 'disable': 'AUTH-TOTP-INVALID',
};

/** The additional authenticated data binding a TOTP secret's envelope to its account. */
export function totpSecretAad(userId: UserId): string {
  return `totp:${userId}`;
}

/**
 * TOTP two-factor (issue #26 item 3, docs/decisions.md 120-126): enrolment, confirmation with recovery codes,
 * disabling, the second step of login, and the step-up check of the money-moving and security-relevant routes.
 * Every accepted code is written with a version check, so of two uses of one code exactly one is accepted.
 */
export class TwoFactorUseCases implements TwoFactorService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: TwoFactorDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * Draws a new secret (replacing one set up but not confirmed) and answers its key URI; the secret is stored only
   * under KeyCipher and never shown again. AUTH-2FA-ALREADY-ENABLED once enabled (disable first).
   */
  async setup(userId: UserId): Promise<TwoFactorSetupView> {
    const secret = this.deps.ids.randomBytes(20);
    try {
      const envelope = await this.deps.cipher.encrypt(secret, totpSecretAad(userId));
      const account = await retryOnConflict(async () => {
        const current = await this.account(userId);
        if (isEnabled(current.twoFactor)) throw new DomainError('AUTH-2FA-ALREADY-ENABLED');
        const twoFactor: TwoFactor = { secret: envelope, enabledAt: null, lastUsedStep: 0, recoveryCodeHashes: [], stepUp: null };
        await this.audit.recordWith(
          () => this.deps.accounts.update({ ...current, twoFactor, version: current.version + 1 }), () => this.event(userId, 'auth.2fa_setup'),
        );
        return current;
      });
      return { otpauth_uri: this.deps.totp.keyUri(secret, account.email, TOTP_ISSUER) };
    } finally {
      secret.fill(0);
    }
  }

  /**
   * body {password, code}: confirms the set-up secret with a current code, enables 2FA and answers the 10 recovery
   * codes (only their hashes are kept). The account's password is needed too (issue #35 item 4: a thief with only a
   * session cannot enrol their own authenticator); turning 2FA on holds new destinations for POLICY_CHANGE_DELAY_H in
   * the same atomic scope and mails the owner a notice. AUTH-2FA-SETUP-REQUIRED without a setup,
   * AUTH-2FA-ALREADY-ENABLED when on, AUTH-INVALID-CREDENTIALS for a wrong password (a code try, recorded as a failed
   * code), AUTH-TOTP-INVALID for a wrong code.
   */
  async enable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorEnabledView> {
    const fields = fieldsOf(body);
    const password = requireString(fields, 'password', 1024);
    const typed = requireString(fields, 'code', 32);
    const current = await this.account(userId);
    if (current.twoFactor == null) throw new DomainError('AUTH-2FA-SETUP-REQUIRED');
    if (isEnabled(current.twoFactor)) throw new DomainError('AUTH-2FA-ALREADY-ENABLED');
    await gate();
    if (!(await this.deps.hasher.verifyPassword(password, current.passwordHash))) {
      await this.countWrong(userId, 'enable');
      throw new DomainError('AUTH-INVALID-CREDENTIALS');
    }
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => this.newRecoveryCode());
    const recoveryCodeHashes = codes.map((code) => this.deps.hasher.hashToken(code));
    await this.consume(userId, parseCode(typed), 'enable', null, (twoFactor): TwoFactor => {
      if (twoFactor.enabledAt !== null) throw new DomainError('AUTH-2FA-ALREADY-ENABLED');
      return { ...twoFactor, enabledAt: this.deps.clock.now(), recoveryCodeHashes };
    }, 'auth.2fa_enabled', () => this.holdNewDestinations(userId));
    await this.deps.mailer.sendTwoFactorChanged(current.email, 'enabled');
    return { recovery_codes: codes.map(formatRecoveryCode) };
  }

  /**
   * body {password, code}: the account's password and a current code or a recovery code turn 2FA off (issue #35 item
   * 4: a stolen session and one code are not enough). Every session of the account ends, the caller's included (a
   * thief may hold a copy of it); the answer is the caller's new session. AUTH-2FA-NOT-ENABLED when off,
   * AUTH-INVALID-CREDENTIALS for a wrong password (counted as a code try first, and as a wrong code of the budget).
   */
  async disable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorDisabledView | PolicyChangeView> {
    const fields = fieldsOf(body);
    const password = requireString(fields, 'password', 1024);
    const typed = requireString(fields, 'code', 32);
    const account = await this.account(userId);
    if (!isEnabled(account.twoFactor)) throw new DomainError('AUTH-2FA-NOT-ENABLED');
    if (isLocked(account.twoFactor)) throw new DomainError('AUTH-ACCOUNT-LOCKED');
    await gate();
    if (!(await this.deps.hasher.verifyPassword(password, account.passwordHash))) {
      await this.countWrong(userId, 'disable');
      throw new DomainError('AUTH-INVALID-CREDENTIALS');
    }
    // The owner's (solo or in a team) and a team member with money rights' 2FA going off is a loosening (issue #35 item
    // 3): the code is used and a pending change of the account that turns it off when it takes effect is recorded, in
    // one atomic scope; nothing else changes now. A solo owner's change with no delay (POLICY_CHANGE_DELAY_H=0,
    // development only) would be due at once: it takes the immediate path below instead, which answers a new session.
    const standing = await this.deps.members?.standingOf(userId) ?? null;
    const policies = this.deps.withdrawalPolicies;
    if (twoFactorOffLoosens(standing?.role ?? null) && policies !== undefined
      && (standing !== null || this.deps.settings.policyChangeDelayMs > 0)) {
      const deps = { ...this.deps, withdrawalPolicies: policies };
      const accountId = standing?.accountId ?? userId;
      let change: PendingPolicyChange | null = null;
      await this.consume(userId, parseCode(typed), 'disable', null, (twoFactor) => twoFactor, undefined, async () => {
        change = await addTeamChange(deps, accountId, () => ({ kind: 'two_factor_off', userId, email: account.email, role: standing?.role ?? 'owner' }));
      });
      const requested = change as PendingPolicyChange | null;
      if (requested === null) throw new TypeError('2FA disable: no pending change was recorded');
      await mailPendingChange(deps, accountId, requested);
      return changeView(requested);
    }
    const now = this.deps.clock.now();
    const token = newSecretToken('st_', this.deps.ids.randomBytes(this.deps.settings.tokenBytes));
    const expiresAt = now + this.deps.settings.sessionTtlMs;
    await this.consume(userId, parseCode(typed), 'disable', null, () => null, 'auth.2fa_disabled', async () => {
      await this.deps.sessions.revokeAllOfUser(userId, now);
      await this.deps.sessions.create({ tokenHash: this.deps.hasher.hashToken(token), userId, createdAt: now, expiresAt, revokedAt: null });
      await this.holdNewDestinations(userId);
    });
    await this.deps.mailer.sendTwoFactorChanged(account.email, 'disabled');
    return { enabled: false, session_token: token, expires_at: formatIsoTime(expiresAt) };
  }

  /**
   * The second step of a login whose password was right: nothing when 2FA is off; else `totpCode` (a current code
   * or a recovery code) must be accepted, AUTH-TOTP-REQUIRED when absent, AUTH-TOTP-INVALID when wrong or used,
   * AUTH-ACCOUNT-LOCKED once the guessing budget is spent. The login's code authorises the login only (issue #35
   * item 4): a step-up action needs a code of its own.
   */
  async checkLogin(given: Account, totpCode: unknown): Promise<void> {
    if (!isEnabled(given.twoFactor)) return;
    // A pending 2FA off that is due takes effect first (issue #35 item 3): an owner who lost their authenticator signs in
    // without a code once the delay has passed, even if nothing read the account's policy since.
    const account = await this.afterDueChanges(given);
    if (!isEnabled(account.twoFactor)) return;
    if (isLocked(account.twoFactor)) throw new DomainError('AUTH-ACCOUNT-LOCKED');
    if (totpCode === undefined || totpCode === null || totpCode === '') throw new DomainError('AUTH-TOTP-REQUIRED');
    if (typeof totpCode !== 'string' || totpCode.length > 32) {
      await this.countWrong(account.id, 'login');
      throw new DomainError('AUTH-TOTP-INVALID');
    }
    await this.consume(account.id, parseCode(totpCode), 'login', null, (twoFactor) => twoFactor);
  }

  /**
   * The step-up check (docs/decisions.md 123, issue #35 item 4): nothing when the user has no 2FA. Else `code` (the
   * X-TOTP-Code header) must be a code this session had accepted for the same reusable scope less than 5 minutes
   * ago, or a fresh current code, which is then this session's proof for `grant.scope` only. A recovery code never
   * passes (it serves 2FA recovery only). AUTH-STEP-UP-REQUIRED without a code, AUTH-STEP-UP-INVALID when wrong, used
   * for another scope, session or request, or expired; AUTH-ACCOUNT-LOCKED once the guessing budget is spent.
   */
  async stepUp(userId: UserId, sessionToken: string, code: string | null, gate: CodeTryGate, grant: StepUpGrant): Promise<void> {
    const account = await this.account(userId);
    if (!isEnabled(account.twoFactor)) return;
    if (isLocked(account.twoFactor)) throw new DomainError('AUTH-ACCOUNT-LOCKED');
    if (code === null || code.trim() === '') throw new DomainError('AUTH-STEP-UP-REQUIRED');
    const typed = parseCode(code);
    const sessionHash = this.deps.hasher.hashToken(sessionToken);
    if (typed.kind !== 'malformed'
      && proofReusable(account.twoFactor.stepUp, sessionHash, this.deps.hasher.hashToken(typed.code), grant, this.deps.clock.now())) return;
    await gate();
    await this.consume(userId, typed, 'step-up', { sessionHash, scope: grant.scope }, (twoFactor) => twoFactor);
  }

  /**
   * Judges `typed` against the account's second factor and, when accepted, writes its use (the step, or the spent
   * recovery code, and the session's proof) through `finish` in one versioned update; a concurrent write re-reads,
   * so a code raced twice is accepted once. A refusal is recorded in the audit log and thrown as the purpose's error.
   * The update lands with its audit entries (a spent recovery code, then `accepted` when given) and `also` in one
   * atomic scope. A code of a kind that does not serve the purpose (codeServes) is refused like a wrong one, unspent.
   * An accepted code resets the shared count of wrong codes; a refused one adds to it (countWrong).
   */
  private async consume(
    userId: UserId, typed: TypedCode, purpose: Purpose, proofFor: { sessionHash: string; scope: string } | null,
    finish: (twoFactor: TwoFactor) => TwoFactor | null, accepted?: AuditAction, also?: () => Promise<void>,
  ): Promise<void> {
    try {
      await retryOnConflict(async () => {
        const account = await this.account(userId);
        const twoFactor = account.twoFactor;
        if (twoFactor == null || !codeServes(typed.kind, purpose)) throw new DomainError(INVALID[purpose]);
        if (isLocked(twoFactor)) throw new DomainError('AUTH-ACCOUNT-LOCKED');
        const now = this.deps.clock.now();
        let next: TwoFactor;
        let recovered = false;
        if (typed.kind === 'totp') {
          const secret = await this.deps.cipher.decrypt(twoFactor.secret, totpSecretAad(userId));
          try {
            const match = matchTotp(typed.code, now, twoFactor.lastUsedStep, (step) => this.deps.totp.codeAt(secret, step));
            if (!match.ok) throw new DomainError(INVALID[purpose]);
            next = { ...twoFactor, lastUsedStep: match.step };
          } finally {
            secret.fill(0);
          }
        } else if (typed.kind === 'recovery' && isEnabled(twoFactor)) {
          const index = recoveryIndex(twoFactor.recoveryCodeHashes, this.deps.hasher.hashToken(typed.code));
          if (index < 0) throw new DomainError(INVALID[purpose]);
          next = { ...twoFactor, recoveryCodeHashes: twoFactor.recoveryCodeHashes.filter((_, i) => i !== index) };
          recovered = true;
        } else {
          throw new DomainError(INVALID[purpose]);
        }
        next = { ...next, failedCodes: 0 };
        if (proofFor !== null) next = { ...next, stepUp: { ...proofFor, proofHash: this.deps.hasher.hashToken(typed.code), at: now } };
        const events = [
          ...(recovered ? [this.event(userId, 'auth.2fa_recovery_used', { purpose })] : []),
          ...(accepted === undefined ? [] : [this.event(userId, accepted)]),
        ];
        const update = { ...account, twoFactor: finish(next), version: account.version + 1 };
        await this.audit.recordWith(async () => {
          await this.deps.accounts.update(update);
          await also?.();
        }, () => events);
      }, 5);
    } catch (error) {
      if (error instanceof DomainError && error.code === INVALID[purpose]) await this.countWrong(userId, purpose);
      throw error;
    }
  }

  /**
   * A wrong code (or password at disable) spends one of the account's CODE_GUESS_BUDGET guesses, shared by login,
   * step-up and disable (issue #35 item 4), recorded with its audit entry; the guess that spends the last one locks
   * the account (auth.locked) and mails the owner, who unlocks it by resetting the password through e-mail.
   */
  private async countWrong(userId: UserId, purpose: Purpose): Promise<void> {
    const locked = await retryOnConflict(async () => {
      const account = await this.account(userId);
      if (account.twoFactor == null || !isEnabled(account.twoFactor)) {
        await this.audit.record(this.event(userId, 'auth.2fa_failed', { purpose }));
        return null;
      }
      const next = afterWrongCode(account.twoFactor, this.deps.clock.now());
      const lockedNow = !isLocked(account.twoFactor) && isLocked(next);
      await this.audit.recordWith(
        () => this.deps.accounts.update({ ...account, twoFactor: next, version: account.version + 1 }),
        () => [
          this.event(userId, 'auth.2fa_failed', { purpose }),
          ...(lockedNow ? [this.event(userId, 'auth.locked', { failed_codes: String(next.failedCodes ?? 0) })] : []),
        ],
      );
      return lockedNow ? account.email : null;
    }, 5);
    if (locked !== null) await this.deps.mailer.sendAccountLocked(locked);
  }

  /**
   * Turning 2FA off or on holds withdrawals to new destinations for POLICY_CHANGE_DELAY_H, in the change's scope (issue
   * #35 item 3: "after a password reset or a 2FA change"): turning it on may be a thief enrolling their own
   * authenticator, so the owner gets the delay to notice the mail and recover the account by a password reset.
   */
  private async holdNewDestinations(userId: UserId): Promise<void> {
    const policies = this.deps.withdrawalPolicies;
    // A member's change holds the team account's withdrawals, which the member acts on (issue #35 item 1).
    const accountId = (await this.deps.members?.standingOf(userId))?.accountId ?? userId;
    if (policies !== undefined) await holdNewDestinations({ ...this.deps, withdrawalPolicies: policies }, accountId, this.deps.clock.now());
  }

  /** The account once the due pending changes of its team account (or its own) are carried out (settledPolicy). */
  private async afterDueChanges(account: Account): Promise<Account> {
    const policies = this.deps.withdrawalPolicies;
    if (policies === undefined) return account;
    const accountId = (await this.deps.members?.standingOf(account.id))?.accountId ?? account.id;
    const policy = await policies.get(accountId);
    if (policy === null || !pendingChangesOf(policy).some((c) => c.team?.kind === 'two_factor_off' && c.effectiveAt <= this.deps.clock.now())) return account;
    await settledPolicy({ ...this.deps, withdrawalPolicies: policies }, accountId);
    return (await this.deps.accounts.findById(account.id)) ?? account;
  }

  private async account(userId: UserId): Promise<Account> {
    const account = await this.deps.accounts.findById(userId);
    if (account === null) throw new DomainError('UNAUTHENTICATED');
    return account;
  }

  private event(userId: UserId, action: AuditAction, detail?: Readonly<Record<string, string>>): AuditEvent {
    return { userId, action, actor: { kind: 'user', id: null }, ...(detail === undefined ? {} : { detail }) };
  }

  /** RECOVERY_CODE_LENGTH uniformly random symbols of RECOVERY_ALPHABET (32 symbols: a byte's low 5 bits, unbiased). */
  private newRecoveryCode(): string {
    return [...this.deps.ids.randomBytes(RECOVERY_CODE_LENGTH)].map((byte) => RECOVERY_ALPHABET[byte & 31]).join('');
  }
}
