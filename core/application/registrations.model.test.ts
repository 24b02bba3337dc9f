import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { DomainError } from '../domain/errors.js';
import { DEFAULT_CORE_SETTINGS } from './deps.js';
import { Registrations } from './registrations.js';

/**
 * "An e-mail belongs to whoever proves the mailbox" (issue #26 item 6) against a reference model: registering never
 * fails; each registration has its own code; the first code verified owns the e-mail and voids every other pending
 * registration of it; an owned e-mail's registrations create nothing; a wrong code counts against every live
 * registration of the e-mail (burnt after 5); codes expire after 15 minutes. Issue #35 item 7: a verification may
 * carry a password, which must be the registration's own (else it counts as a wrong code), and a code alone verifies
 * only a lone live registration (VALIDATION-ERROR while several are live, nothing counted).
 */
const EMAILS = ['a@example.com', 'b@example.com'] as const;
const MINUTE = 60_000;

type Op =
  | { readonly op: 'register'; readonly email: number }
  | { readonly op: 'verify'; readonly registration: number; readonly right: boolean; readonly times: number; readonly password: 'own' | 'none' | 'other' }
  | { readonly op: 'advance'; readonly ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('register' as const), email: fc.nat(1) }), weight: 3 },
  // `times`: the same verification repeated (a burst of wrong codes burns the live registrations).
  {
    arbitrary: fc.record({
      op: fc.constant('verify' as const), registration: fc.nat(12), right: fc.boolean(), times: fc.oneof(fc.constant(1), fc.constant(5)),
      password: fc.constantFrom('own' as const, 'none' as const, 'other' as const),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 10 * MINUTE }) }), weight: 1 },
);

interface ModelRegistration {
  readonly email: string;
  readonly id: number;
  readonly password: string;
  /** null: registered while the e-mail was owned, so no code was sent and nothing was stored. */
  readonly code: string | null;
  readonly expiresAt: number;
  attempts: number;
  state: 'pending' | 'void' | 'owner';
}

async function outcomeOf<T>(run: () => Promise<T>): Promise<T | string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('registration ownership against the reference model', () => {
  it('every answer and the stored owner of each e-mail are the model\'s, over any registrations, codes and clock moves', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
      const clock = new ManualClock();
      const stores = createMemoryAdapters({ clock });
      const mailer = new RecordingMailer();
      const settings = DEFAULT_CORE_SETTINGS;
      const registrations = new Registrations({
        accounts: stores.accounts, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer, clock, ids: stores.ids, settings,
      });
      const model: ModelRegistration[] = [];
      const owners = new Map<string, ModelRegistration>();
      const live = (r: ModelRegistration): boolean => r.state === 'pending' && r.code !== null
        && clock.now() < r.expiresAt && r.attempts < settings.verificationMaxAttempts;
      for (const o of ops) {
        if (o.op === 'advance') { clock.advance(o.ms); continue; }
        if (o.op === 'register') {
          const email = EMAILS[o.email]!;
          const exists = mailer.accountExistsSent.length;
          const password = `a long enough password ${model.length}`;
          const answer = await registrations.register(email, password);
          expect(answer.email).toBe(email);
          expect(model.map((r) => r.id)).not.toContain(answer.user_id);
          const owned = owners.has(email);
          expect(mailer.accountExistsSent.length).toBe(exists + (owned ? 1 : 0));
          model.push({
            email, id: answer.user_id, password, code: owned ? null : mailer.lastCodeFor(email)!, expiresAt: clock.now() + settings.verificationTtlMs,
            attempts: 0, state: owned ? 'void' : 'pending',
          });
          continue;
        }
        const target = model[o.registration % Math.max(1, model.length)];
        if (target === undefined) continue;
        for (let i = 0; i < o.times; i++) {
          const email = target.email;
          const codes = new Set(model.filter((r) => r.email === email && r.code !== null).map((r) => r.code!));
          let wrong = 0;
          while (codes.has(String(wrong).padStart(6, '0'))) wrong++;
          const code = o.right && target.code !== null ? target.code : String(wrong).padStart(6, '0');
          const password = o.password === 'own' ? target.password : o.password === 'other' ? 'nobody\'s password' : null;
          const chosenBy = (r: ModelRegistration): boolean => password === null || password === r.password;
          // The model's answer.
          let expected: { user_id: number; email: string; verified: true } | string;
          const owner = owners.get(email);
          if (owner !== undefined) {
            expected = code === owner.code && clock.now() < owner.expiresAt && chosenBy(owner)
              ? { user_id: owner.id, email, verified: true } : 'AUTH-VERIFICATION-FAILED';
          } else {
            const candidates = model.filter((r) => r.email === email && live(r));
            const match = candidates.find((r) => r.code === code);
            if (match === undefined || !chosenBy(match)) {
              for (const r of candidates) r.attempts++;
              expected = 'AUTH-VERIFICATION-FAILED';
            } else if (password === null && candidates.length > 1) {
              expected = 'VALIDATION-ERROR';
            } else {
              for (const r of model) if (r.email === email && r.state === 'pending') r.state = 'void';
              match.state = 'owner';
              owners.set(email, match);
              expected = { user_id: match.id, email, verified: true };
            }
          }
          expect(await outcomeOf(() => registrations.verify(email, code, password))).toEqual(expected);
          // The store agrees: one owner at most, it is the model's, and an owned e-mail has nothing pending.
          for (const e of EMAILS) {
            expect((await stores.accounts.findByEmail(e))?.id ?? null).toBe(owners.get(e)?.id ?? null);
            const pending = (await stores.accounts.listPendingByEmail(e)).map((a) => a.id).sort();
            expect(pending).toEqual(model.filter((r) => r.email === e && r.state === 'pending').map((r) => r.id).sort());
          }
        }
      }
    }), { numRuns: runs(150) });
  });
});
