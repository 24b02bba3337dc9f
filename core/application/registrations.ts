import { timingSafeEqual } from 'node:crypto';
import { ConcurrencyConflict, DomainError, validationError } from '../domain/errors.js';
import type { Account } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';
import { formatIsoTime } from '../domain/time.js';
import type { ResolvedDeps } from './deps.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { RegisteredView, VerifiedView } from './views.js';

/** Largest multiple of 10^6 below 2^32: values at or above it are redrawn so every code is equally likely. */
const CODE_BOUND = 4_294_000_000;

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The ports registration and verification touch. */
export type RegistrationDeps = Pick<ResolvedDeps, 'accounts' | 'hasher' | 'mailer' | 'clock' | 'ids' | 'settings'>;

/**
 * "An e-mail belongs to whoever proves the mailbox" (issue #26 item 6, docs/decisions.md 127). Every registration is
 * its own pending registration with its own password, id and code, and none blocks another; the first verified
 * owns the e-mail and the others are void. A registration of an owned e-mail answers exactly like any other (a fresh
 * id, one mail), so the answer does not tell whether the e-mail is registered.
 *
 * Issue #35 item 7: every code mail names its registration (the id its registrant was answered, and when), and a
 * verification never sets a password its verifier did not choose. While several registrations of the e-mail are
 * pending (a squatter's among them, all mailed to the owner), a code counts only with the password of its own
 * registration; a lone registration still verifies with its code alone (DESIGN.md's `{email, code}`).
 */
export class Registrations {
  constructor(private readonly deps: RegistrationDeps) {}

  /** Registers `email` (already validated and folded) with `password`: 201 {user_id, email} whoever holds it. */
  async register(email: string, password: string): Promise<RegisteredView> {
    // The same work on both paths (scrypt, a code, an id, one mail); they differ in one store write.
    const passwordHash = await this.deps.hasher.hashPassword(password);
    const code = this.newCode();
    const id = await this.deps.ids.nextInt('user');
    if ((await this.deps.accounts.findByEmail(email)) !== null) {
      await this.deps.mailer.sendAccountExists(email);
      return { user_id: id, email };
    }
    const now = this.deps.clock.now();
    const notice = { number: id, registeredAt: formatIsoTime(now) };
    await this.deps.accounts.create({
      id, email, passwordHash, verified: false,
      verificationCodeHash: this.deps.hasher.hashToken(code),
      verificationExpiresAt: now + this.deps.settings.verificationTtlMs,
      verificationAttempts: 0, createdAt: now, version: 1,
    });
    await this.deps.mailer.sendVerificationCode(email, code, notice);
    return { user_id: id, email };
  }

  /**
   * Verifies the pending registration whose code matches: it becomes the e-mail's account and every other pending
   * registration of the e-mail is void. Repeating the verification with the code that won answers the same while
   * the code is unexpired. Anything else is AUTH-VERIFICATION-FAILED, and a wrong code counts against every live
   * registration of the e-mail (each burns after verificationMaxAttempts, as before).
   *
   * `password` (issue #35 item 7), when given, must be the registration's own: a right code with another password
   * is a wrong code. Without it, a right code verifies only a lone live registration; with several pending it is
   * VALIDATION-ERROR naming `password` (told only to whoever holds a right code, that is the mailbox).
   */
  async verify(email: string, code: string, password: string | null = null): Promise<VerifiedView> {
    // A promotion that lost a race re-reads: the winner's e-mail is then owned and the loser's row is gone.
    return retryOnConflict(() => this.verifyOnce(email, code, password), 3);
  }

  /**
   * The account a login of `email` is judged against: the verified one, else the newest live pending registration
   * (whose right password answers AUTH-NOT-VERIFIED), else null.
   */
  async accountForLogin(email: string): Promise<Account | null> {
    const owner = await this.deps.accounts.findByEmail(email);
    if (owner !== null) return owner;
    const pending = await this.deps.accounts.listPendingByEmail(email);
    return pending.at(-1) ?? null;
  }

  private async verifyOnce(email: string, code: string, password: string | null): Promise<VerifiedView> {
    const codeHash = this.deps.hasher.hashToken(code);
    const now = this.deps.clock.now();
    const owner = await this.deps.accounts.findByEmail(email);
    if (owner !== null) {
      const repeat = owner.verificationCodeHash !== null && owner.verificationExpiresAt !== null
        && now < owner.verificationExpiresAt && sameHash(codeHash, owner.verificationCodeHash);
      if (!repeat || !(await this.chosenBy(owner, password))) throw new DomainError('AUTH-VERIFICATION-FAILED');
      return { user_id: owner.id, email: owner.email, verified: true };
    }
    const live = (await this.deps.accounts.listPendingByEmail(email)).filter((r) => this.live(r, now));
    // Every live code is compared (constant time each), so the timing does not tell which one matched.
    let match: Account | undefined;
    for (const registration of live) if (sameHash(codeHash, registration.verificationCodeHash!) && match === undefined) match = registration;
    if (match === undefined || !(await this.chosenBy(match, password))) {
      for (const registration of live) await this.countWrongCode(registration.id);
      throw new DomainError('AUTH-VERIFICATION-FAILED');
    }
    // Several registrations pending, one of them perhaps a squatter's mailed to the owner: the code alone does not
    // say that its verifier chose this registration's password.
    if (password === null && live.length > 1) {
      throw validationError('password', 'is required: several registrations of this e-mail are pending; send the password you registered with');
    }
    // The code's hash and expiry stay on the account, so a repeated verification with it still answers success.
    const won = await this.deps.accounts.promote({ ...match, verified: true, verificationAttempts: 0, version: match.version + 1 });
    if (!won) throw new DomainError('AUTH-VERIFICATION-FAILED');
    return { user_id: match.id, email: match.email, verified: true };
  }

  /**
   * Counts one wrong code against a registration, re-reading on a concurrent write so that every judged code is
   * counted; nothing is written once it is spent, expired, verified or void.
   */
  private async countWrongCode(id: UserId): Promise<void> {
    await retryOnConflict(async () => {
      const current = await this.deps.accounts.findById(id);
      if (current === null || current.verified || !this.live(current, this.deps.clock.now())) return;
      await this.deps.accounts.update({ ...current, verificationAttempts: current.verificationAttempts + 1, version: current.version + 1 });
    }, this.deps.settings.verificationMaxAttempts + 1).catch((error: unknown) => {
      // The registration was verified or voided between the read and the write: nothing left to count.
      if (!(error instanceof ConcurrencyConflict)) throw error;
    });
  }

  /** No password given (judged by the caller), or the registration's own. */
  private async chosenBy(registration: Account, password: string | null): Promise<boolean> {
    return password === null || this.deps.hasher.verifyPassword(password, registration.passwordHash);
  }

  /** A pending registration whose code may still be tried. */
  private live(registration: Account, now: number): boolean {
    return registration.verificationCodeHash !== null && registration.verificationExpiresAt !== null
      && now < registration.verificationExpiresAt && registration.verificationAttempts < this.deps.settings.verificationMaxAttempts;
  }

  /** Six uniformly random digits from the IdGenerator's bytes (rejection sampling avoids modulo bias). */
  private newCode(): string {
    for (;;) {
      const value = Buffer.from(this.deps.ids.randomBytes(4)).readUInt32BE(0);
      if (value < CODE_BOUND) return String(value % 1_000_000).padStart(6, '0');
    }
  }
}
