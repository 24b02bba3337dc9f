import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { DomainError } from '../domain/errors.js';
import { CODE_GUESS_BUDGET, stepAt, STEP_UP_TTL_MS } from '../domain/two-factor-rules.js';
import { AccountsUseCases } from './accounts.service.js';
import { DEFAULT_CORE_SETTINGS } from './deps.js';
import { TwoFactorUseCases } from './two-factor.service.js';

/**
 * Login's second step and the step-up check (TwoFactorUseCases on the memory store, the real cipher and otpauth)
 * against a reference model of issue #26's rules: a code is accepted once (its step, and every earlier one, is used),
 * a recovery code once and only at login, a code accepted at a step-up opens that kind of action (scope) again for
 * that session only, for 5 minutes, unless the kind is a one-action one; a login's code opens nothing else (issue #35
 * item 4); wrong codes at login and step-up share one budget that locks the account and mails the owner once.
 * Accounts without 2FA are not asked for anything.
 */
const totp = new OtpauthTotpGenerator();
const PASSWORD = 'a long enough password';
const EMAIL = 'model@example.com';
const GRANT = { scope: 'A', reusable: true };

type Choice =
  | { readonly kind: 'none' } | { readonly kind: 'wrong' } | { readonly kind: 'lastAccepted' }
  | { readonly kind: 'step'; readonly offset: number } | { readonly kind: 'recovery'; readonly index: number };

type Op =
  | { readonly op: 'advance'; readonly ms: number }
  | { readonly op: 'login'; readonly code: Choice }
  | { readonly op: 'stepUp'; readonly session: number; readonly code: Choice; readonly scope: Scope };

/** Two kinds of action a code may keep authorising for 5 minutes, and one (a withdrawal) it authorises once. */
type Scope = 'A' | 'B' | 'once';
const scope: fc.Arbitrary<Scope> = fc.constantFrom('A', 'B', 'once');

const choice: fc.Arbitrary<Choice> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'wrong' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'lastAccepted' as const }), weight: 3 },
  { arbitrary: fc.integer({ min: -2, max: 2 }).map((offset) => ({ kind: 'step' as const, offset })), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 2 }).map((index) => ({ kind: 'recovery' as const, index })), weight: 1 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.constantFrom(STEP_UP_TTL_MS - 1, 1)) }),
  fc.record({ op: fc.constant('login' as const), code: choice }),
  fc.record({ op: fc.constant('stepUp' as const), session: fc.nat(3), code: choice, scope }),
  fc.record({ op: fc.constant('stepUp' as const), session: fc.constant(-1), code: fc.constant({ kind: 'lastAccepted' as const }), scope }),
);

async function outcomeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/** The model: the last used step, the unused recovery codes, the last step-up proof, the shared count of wrong codes. */
interface Model {
  lastUsed: number;
  recovery: Set<string>;
  proof: { session: number; code: string; at: number; scope: Scope } | null;
  wrong: number;
  locked: boolean;
}

function normalize(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

/**
 * The model's judgement of a fresh code; on acceptance it updates the model and returns true. A recovery code serves
 * login only here (2FA recovery), never a step-up.
 */
function judgeFresh(model: Model, code: string, now: number, secret: Uint8Array, purpose: 'login' | 'step-up'): boolean {
  if (/^\d{6}$/.test(code)) {
    const near = [-1, 0, 1].map((d) => stepAt(now) + d).filter((s) => s > model.lastUsed && totp.codeAt(secret, s) === code);
    if (near.length === 0) return false;
    model.lastUsed = Math.min(...near);
    return true;
  }
  if (purpose === 'step-up' || !model.recovery.has(normalize(code))) return false;
  model.recovery.delete(normalize(code));
  return true;
}

async function world() {
  const clock = new ManualClock();
  const stores = createMemoryAdapters({ clock });
  const mailer = new RecordingMailer();
  const deps = {
    accounts: stores.accounts, sessions: stores.sessions, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer, clock,
    ids: stores.ids, settings: DEFAULT_CORE_SETTINGS, auditLog: stores.auditLog, uow: stores.uow, totp,
    cipher: AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 9).toString('base64')),
  };
  const accounts = new AccountsUseCases(deps);
  const twoFactor = new TwoFactorUseCases(deps);
  const { user_id: userId } = await accounts.register({ email: EMAIL, password: PASSWORD });
  await accounts.verify({ email: EMAIL, code: mailer.lastCodeFor(EMAIL) });
  return { clock, accounts, twoFactor, userId, stores, mailer };
}

describe('two-factor login and step-up against the reference model', () => {
  it('every login and step-up answer is the model\'s, whatever the codes, sessions and clock moves', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
      const { clock, accounts, twoFactor, userId, mailer } = await world();
      const sessions = [(await accounts.login({ email: EMAIL, password: PASSWORD })).session_token];
      const { otpauth_uri } = await twoFactor.setup(userId);
      const secret = Secret.fromBase32(new URL(otpauth_uri).searchParams.get('secret')!).bytes;
      const gate = async (): Promise<void> => {};
      const { recovery_codes } = await twoFactor.enable(userId, { password: PASSWORD, code: totp.codeAt(secret, stepAt(clock.now())) }, gate);
      const model: Model = { lastUsed: stepAt(clock.now()), recovery: new Set(recovery_codes.map(normalize)), proof: null, wrong: 0, locked: false };
      /** A judged code: accepted resets the shared count, refused adds one and may lock (CODE_GUESS_BUDGET). */
      const judged = (accepted: boolean): void => {
        model.wrong = accepted ? 0 : model.wrong + 1;
        if (model.wrong >= CODE_GUESS_BUDGET) model.locked = true;
      };
      let lastAccepted = totp.codeAt(secret, stepAt(clock.now()));
      const codeFor = (c: Choice): string | undefined => {
        const now = stepAt(clock.now());
        switch (c.kind) {
          case 'none': return undefined;
          case 'lastAccepted': return lastAccepted;
          case 'step': return totp.codeAt(secret, now + c.offset);
          case 'recovery': return recovery_codes[c.index];
          case 'wrong': {
            const near = new Set([-1, 0, 1].map((d) => totp.codeAt(secret, now + d)));
            let n = 0;
            while (near.has(String(n).padStart(6, '0'))) n++;
            return String(n).padStart(6, '0');
          }
        }
      };
      for (const o of ops) {
        if (o.op === 'advance') { clock.advance(o.ms); continue; }
        const code = codeFor(o.code);
        const now = clock.now();
        if (o.op === 'login') {
          let expected: string;
          if (model.locked) expected = 'AUTH-ACCOUNT-LOCKED';
          else if (code === undefined) expected = 'AUTH-TOTP-REQUIRED';
          else if (judgeFresh(model, code, now, secret, 'login')) {
            expected = 'ok';
            lastAccepted = code;
            judged(true);
          } else {
            expected = 'AUTH-TOTP-INVALID';
            judged(false);
          }
          let token: string | undefined;
          const got = await outcomeOf(async () => { token = (await accounts.login({ email: EMAIL, password: PASSWORD, ...(code === undefined ? {} : { totp_code: code }) })).session_token; });
          expect(got).toBe(expected);
          if (token !== undefined) sessions.push(token);
        } else {
          // -1: the session the model's proof belongs to (the interesting reuse), else any.
          const session = o.session === -1 ? (model.proof?.session ?? 0) : o.session % sessions.length;
          let expected: string;
          const proof = model.proof;
          if (model.locked) expected = 'AUTH-ACCOUNT-LOCKED';
          else if (code === undefined) expected = 'AUTH-STEP-UP-REQUIRED';
          else if (proof !== null && proof.session === session && proof.code === normalize(code) && proof.scope === o.scope && o.scope !== 'once'
            && now < proof.at + STEP_UP_TTL_MS) expected = 'ok';
          else if (judgeFresh(model, code, now, secret, 'step-up')) {
            expected = 'ok';
            model.proof = { session, code: normalize(code), at: now, scope: o.scope };
            lastAccepted = code;
            judged(true);
          } else {
            expected = 'AUTH-STEP-UP-INVALID';
            judged(false);
          }
          const grant = { scope: o.scope, reusable: o.scope !== 'once' };
          expect(await outcomeOf(() => twoFactor.stepUp(userId, sessions[session]!, code ?? null, gate, grant))).toBe(expected);
        }
        // The owner is mailed once, when the budget runs out.
        expect(mailer.accountLockedSent).toHaveLength(model.locked ? 1 : 0);
      }
    }), { numRuns: runs(120) });
  });

  it('without 2FA (never set up, or set up but not confirmed) nothing is asked and no header is judged', async () => {
    const { accounts, twoFactor, userId } = await world();
    const session = (await accounts.login({ email: EMAIL, password: PASSWORD })).session_token;
    for (const code of [null, '', 'garbage', '123456']) expect(await outcomeOf(() => twoFactor.stepUp(userId, session, code, async () => { throw new Error('no try counted'); }, GRANT))).toBe('ok');
    await twoFactor.setup(userId);
    expect(await outcomeOf(() => accounts.login({ email: EMAIL, password: PASSWORD }))).toBe('ok');
    expect(await outcomeOf(() => twoFactor.stepUp(userId, session, null, async () => {}, GRANT))).toBe('ok');
  });
});
