import { DomainError } from '../domain/errors.js';
import type { Account, TwoFactor } from '../domain/model/account.js';
import type { AuditAction, AuditEvent } from '../domain/model/audit.js';
import type { UserId } from '../domain/model/common.js';
import {
  formatRecoveryCode, isEnabled, matchTotp, parseCode, proofReusable, RECOVERY_ALPHABET, RECOVERY_CODE_COUNT,
  RECOVERY_CODE_LENGTH, recoveryIndex, type TypedCode,
} from '../domain/two-factor-rules.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, requireString } from './input.js';
import { retryOnConflict } from './retry-on-conflict.js';

/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Custody Hub';

/** The ports two-factor touches. */
export type TwoFactorDeps = Pick<ResolvedDeps, 'accounts' | 'cipher' | 'totp' | 'hasher' | 'clock' | 'ids' | 'auditLog' | 'uow'>;

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
}

/** TOTP two-factor and the step-up check (issue #26 item 3). */
export interface TwoFactorService {
  /** Draws a secret and answers its otpauth:// URI; AUTH-2FA-ALREADY-ENABLED when on. */
  setup(userId: UserId): Promise<TwoFactorSetupView>;
  /** body {code}: confirms the setup and answers the recovery codes once. */
  enable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorEnabledView>;
  /** body {code} (a code or a recovery code): turns 2FA off. */
  disable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorDisabledView>;
  /** Passes, or throws AUTH-STEP-UP-REQUIRED / AUTH-STEP-UP-INVALID; a no-op for a user without 2FA. */
  stepUp(userId: UserId, sessionToken: string, code: string | null, gate: CodeTryGate): Promise<void>;
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
   * body {code}: confirms the set-up secret with a current code, enables 2FA and answers the 10 recovery codes (only
   * their hashes are kept). AUTH-2FA-SETUP-REQUIRED without a setup, AUTH-2FA-ALREADY-ENABLED when on,
   * AUTH-TOTP-INVALID for a wrong code.
   */
  async enable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorEnabledView> {
    const typed = requireString(fieldsOf(body), 'code', 32);
    const current = await this.account(userId);
    if (current.twoFactor == null) throw new DomainError('AUTH-2FA-SETUP-REQUIRED');
    if (isEnabled(current.twoFactor)) throw new DomainError('AUTH-2FA-ALREADY-ENABLED');
    await gate();
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => this.newRecoveryCode());
    const recoveryCodeHashes = codes.map((code) => this.deps.hasher.hashToken(code));
    await this.consume(userId, parseCode(typed), 'enable', null, (twoFactor): TwoFactor => {
      if (twoFactor.enabledAt !== null) throw new DomainError('AUTH-2FA-ALREADY-ENABLED');
      return { ...twoFactor, enabledAt: this.deps.clock.now(), recoveryCodeHashes };
    }, 'auth.2fa_enabled');
    return { recovery_codes: codes.map(formatRecoveryCode) };
  }

  /** body {code}: a current code or a recovery code turns 2FA off. AUTH-2FA-NOT-ENABLED when off. */
  async disable(userId: UserId, body: unknown, gate: CodeTryGate): Promise<TwoFactorDisabledView> {
    const typed = requireString(fieldsOf(body), 'code', 32);
    if (!isEnabled((await this.account(userId)).twoFactor)) throw new DomainError('AUTH-2FA-NOT-ENABLED');
    await gate();
    await this.consume(userId, parseCode(typed), 'disable', null, () => null, 'auth.2fa_disabled');
    return { enabled: false };
  }

  /**
   * The second step of a login whose password was right: nothing when 2FA is off; else `totpCode` (a current code
   * or a recovery code) must be accepted, AUTH-TOTP-REQUIRED when absent, AUTH-TOTP-INVALID when wrong or used. The
   * accepted code is the new session's step-up proof (`sessionHash`) for the next 5 minutes.
   */
  async checkLogin(account: Account, totpCode: unknown, sessionHash: string): Promise<void> {
    if (!isEnabled(account.twoFactor)) return;
    if (totpCode === undefined || totpCode === null || totpCode === '') throw new DomainError('AUTH-TOTP-REQUIRED');
    if (typeof totpCode !== 'string' || totpCode.length > 32) throw new DomainError('AUTH-TOTP-INVALID');
    await this.consume(account.id, parseCode(totpCode), 'login', sessionHash, (twoFactor) => twoFactor);
  }

  /**
   * The step-up check (docs/decisions.md 123): nothing when the user has no 2FA. Else `code` (the X-TOTP-Code
   * header) must be a code accepted for this session less than 5 minutes ago, or a fresh current code or recovery
   * code, which is then this session's proof. AUTH-STEP-UP-REQUIRED without a code, AUTH-STEP-UP-INVALID when wrong,
   * used by another session or request, or expired.
   */
  async stepUp(userId: UserId, sessionToken: string, code: string | null, gate: CodeTryGate): Promise<void> {
    const account = await this.account(userId);
    if (!isEnabled(account.twoFactor)) return;
    if (code === null || code.trim() === '') throw new DomainError('AUTH-STEP-UP-REQUIRED');
    const typed = parseCode(code);
    const sessionHash = this.deps.hasher.hashToken(sessionToken);
    if (typed.kind !== 'malformed'
      && proofReusable(account.twoFactor.stepUp, sessionHash, this.deps.hasher.hashToken(typed.code), this.deps.clock.now())) return;
    await gate();
    await this.consume(userId, typed, 'step-up', sessionHash, (twoFactor) => twoFactor);
  }

  /**
   * Judges `typed` against the account's second factor and, when accepted, writes its use (the step, or the spent
   * recovery code, and the session's proof) through `finish` in one versioned update; a concurrent write re-reads,
   * so a code raced twice is accepted once. A refusal is recorded in the audit log and thrown as the purpose's error.
   * The update lands with its audit entries (a spent recovery code, then `accepted` when given) in one atomic scope.
   */
  private async consume(
    userId: UserId, typed: TypedCode, purpose: Purpose, sessionHash: string | null, finish: (twoFactor: TwoFactor) => TwoFactor | null,
    accepted?: AuditAction,
  ): Promise<void> {
    try {
      await retryOnConflict(async () => {
        const account = await this.account(userId);
        const twoFactor = account.twoFactor;
        if (twoFactor == null) throw new DomainError(INVALID[purpose]);
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
        if (sessionHash !== null) next = { ...next, stepUp: { sessionHash, proofHash: this.deps.hasher.hashToken(typed.code), at: now } };
        const events = [
          ...(recovered ? [this.event(userId, 'auth.2fa_recovery_used', { purpose })] : []),
          ...(accepted === undefined ? [] : [this.event(userId, accepted)]),
        ];
        const update = { ...account, twoFactor: finish(next), version: account.version + 1 };
        await this.audit.recordWith(() => this.deps.accounts.update(update), () => events);
      }, 5);
    } catch (error) {
      // A refused code writes nothing else: its entry is its only write.
      if (error instanceof DomainError && error.code === INVALID[purpose]) await this.audit.record(this.event(userId, 'auth.2fa_failed', { purpose }));
      throw error;
    }
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
