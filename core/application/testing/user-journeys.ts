import { DomainError } from '../../domain/errors.js';
import type { Application } from '../application.js';

/** Reads the latest verification code mailed to an address (RecordingMailer.lastCodeFor fits). */
export type CodeReader = (email: string) => string | undefined;

/** The password every journey registers with (long enough for the rules). */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A registered, verified, logged-in user. */
export interface SignedUpUser {
  readonly userId: number;
  readonly email: string;
  readonly sessionToken: string;
}

/** Register → read the mailed code → verify → login, through the use cases only. */
export async function signUp(app: Application, readCode: CodeReader, email: string): Promise<SignedUpUser> {
  const registered = await app.accounts.register({ email, password: TEST_PASSWORD });
  const code = readCode(email);
  if (code === undefined) throw new Error(`no verification code was mailed to ${email}`);
  await app.accounts.verify({ email, code });
  const login = await app.accounts.login({ email, password: TEST_PASSWORD });
  return { userId: registered.user_id, email, sessionToken: login.session_token };
}

/** Activates both services (developer `standard`, sub_address `plan`). */
export async function subscribeAll(app: Application, userId: number, subAddressPlan = 'starter'): Promise<void> {
  await app.subscriptions.activate(userId, { service_code: 'developer' });
  await app.subscriptions.activate(userId, { service_code: 'sub_address', plan_code: subAddressPlan });
}

/** A user with both subscriptions, a TRON main address and `subs` sub-addresses. */
export interface UserWithWallets extends SignedUpUser {
  readonly main: string;
  readonly subs: readonly string[];
}

/** signUp + subscribeAll + a main address + `subs` sub-addresses on TRON. */
export async function userWithWallets(app: Application, readCode: CodeReader, email: string, subs = 1): Promise<UserWithWallets> {
  const user = await signUp(app, readCode, email);
  await subscribeAll(app, user.userId);
  const main = await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 });
  const created: string[] = [];
  for (let i = 0; i < subs; i++) {
    created.push((await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 2 })).address);
  }
  return { ...user, main: main.address, subs: created };
}

/** The error a promise rejects with, or a thrown Error when it resolves (so a test cannot pass on success). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/**
 * The catalogue code a use case failed with, as `{ code }` (the HTTP status of a code is the API host's, tested there);
 * throws when it did not fail with a DomainError.
 */
export async function failureOf(promise: Promise<unknown>): Promise<{ readonly code: string }> {
  const error = await rejectionOf(promise);
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return { code: error.code };
}
