/**
 * Test support of the console's team screens (issue #38; never imported by production code): HTTP calls with headers
 * (step-up codes, Idempotency-Keys), two-factor enrolment with codes computed from the enrolled secret on the server's
 * manual clock (each code a new time step, as a replay is refused), and an owner with an operator and an approver who
 * joined with their mailed invitation codes.
 */
import { Secret } from 'otpauth';
import { pino } from 'pino';
import type { BrowserContext } from 'playwright-core';
import { ManualClock } from '../../../adapters/memory/index.js';
import { NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../../adapters/node/index.js';
import { stepAt, TOTP_PERIOD_MS } from '../../../core/domain/two-factor-rules.js';
import { startDev } from '../../dev/start-dev.js';
import { CONSOLE_HOST, emailOf, mailedCode, newMerchant, PASSWORD, type Merchant, type World } from './console.browser-fixture.js';

/**
 * The `npm start` stack on manual clocks with POLICY_CHANGE_DELAY_H set (1 h here), so that a loosening stays pending
 * while a test looks at it: a team's invitations then wait that long on the server's clock.
 */
export async function startTeamWorld(policyChangeDelayH = '1'): Promise<World> {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  const dev = await startDev({
    env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0', POLICY_CHANGE_DELAY_H: policyChangeDelayH }, writeLine: (line) => output.push(line),
    manualWorker: true, clock, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
  return { dev, clock, output, base: `http://${CONSOLE_HOST}:${new URL(dev.url).port}` };
}

/** One API call: its HTTP status, the envelope's code and message, and data. */
export async function request(w: World, method: string, path: string, options: {
  token?: string; body?: unknown; code?: string; key?: string; headers?: Record<string, string>;
} = {}): Promise<{ status: number; code: string; message: string; data: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.code !== undefined) headers['x-totp-code'] = options.code;
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const response = await fetch(`${w.dev.url}/api${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const json = (await response.json()) as { code: string; message: string; data: unknown };
  return { status: response.status, code: json.code, message: json.message, data: json.data };
}

/** As request, but throws unless the status is `expect`. */
export async function ok(w: World, method: string, path: string, expect: number, options: Parameters<typeof request>[3] = {}): Promise<any> {
  const answer = await request(w, method, path, options);
  if (answer.status !== expect) throw new Error(`${method} ${path}: ${answer.status} ${answer.code} ${answer.message}`);
  return answer.data;
}

const totp = new OtpauthTotpGenerator();

/** A fresh code of an enrolled secret: the server's clock moves one TOTP step first (a code serves once). */
export type CodeSource = () => string;

export function codesOf(w: World, base32: string): CodeSource {
  const secret = Secret.fromBase32(base32).bytes;
  return () => {
    w.clock.advance(TOTP_PERIOD_MS);
    return totp.codeAt(secret, stepAt(w.clock.now()));
  };
}

/** Turns 2FA on for the session's own user over HTTP; answers its code source. */
export async function enrol(w: World, session: string): Promise<CodeSource> {
  const setup = await ok(w, 'POST', '/auth/2fa/setup', 200, { token: session });
  const base32 = new URL(setup.otpauth_uri as string).searchParams.get('secret')!;
  const secret = Secret.fromBase32(base32).bytes;
  await ok(w, 'POST', '/auth/2fa/enable', 200, { token: session, body: { password: PASSWORD, code: totp.codeAt(secret, stepAt(w.clock.now())) } });
  return codesOf(w, base32);
}

export interface Member { readonly email: string; readonly session: string; readonly userId: number }

/** Registers an invited member with the mailed invitation code and logs it in over HTTP. */
export async function joinAs(w: World, email: string): Promise<Member> {
  const invitation = mailedCode(w, email, (e) => new RegExp(`invitation code for ${e.replace(/[.+]/g, '\\$&')}: (\\S+)`));
  const joined = await ok(w, 'POST', '/auth/register', 201, { body: { email, password: PASSWORD, invitation_code: invitation } });
  const login = await ok(w, 'POST', '/auth/login', 200, { body: { email, password: PASSWORD } });
  return { email, session: login.session_token as string, userId: joined.user_id as number };
}

export interface Team {
  readonly owner: Merchant;
  readonly ownerEmail: string;
  readonly ownerCode: CodeSource;
  readonly operator: Member;
  readonly approver: Member;
  readonly approverCode: CodeSource;
}

let teams = 0;

/**
 * An owner (2FA on) with an operator and an approver (2FA on), both joined: the invitations are loosenings that wait
 * POLICY_CHANGE_DELAY_H (24 h by default), so the server's clock moves past it. `beforeJoin` runs while the owner is
 * still alone (a solo owner's tightening, e.g. an approval threshold, is immediate).
 */
export async function teamOf(w: World, beforeJoin: (owner: Merchant) => Promise<void> = async () => {}): Promise<Team> {
  const n = ++teams;
  const owner = await newMerchant(w);
  const ownerEmail = await emailOf(w, owner);
  await beforeJoin(owner);
  const operatorEmail = `operator${n}@team.example`;
  const approverEmail = `approver${n}@team.example`;
  await ok(w, 'POST', '/members', 202, { token: owner.session, body: { email: operatorEmail, role: 'operator' } });
  const ownerCode = await enrol(w, owner.session);
  await ok(w, 'POST', '/members', 202, { token: owner.session, body: { email: approverEmail, role: 'approver' }, code: ownerCode() });
  w.clock.advance(25 * 3_600_000);
  const operator = await joinAs(w, operatorEmail);
  const approver = await joinAs(w, approverEmail);
  const approverCode = await enrol(w, approver.session);
  // The owner's session idled out while the clock moved: a new one.
  const login = await ok(w, 'POST', '/auth/login', 200, { body: { email: ownerEmail, password: PASSWORD, totp_code: ownerCode() } });
  return { owner: { ...owner, session: login.session_token as string }, ownerEmail, ownerCode, operator, approver, approverCode };
}

/** The console cookie of a signed-in context, for calls the page would not make (the API must refuse them). */
export async function consoleCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === 'ch_console');
  if (cookie === undefined) throw new Error('no console cookie');
  return cookie.value;
}

/** A call with the console's cookie and the same-origin headers the page's calls carry. */
export async function withCookie(w: World, cookie: string, method: string, path: string, body?: unknown): Promise<{ status: number; code: string }> {
  const response = await fetch(`${w.dev.url}/api${path}`, {
    method,
    headers: { cookie: `ch_console=${cookie}`, 'x-console': '1', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { code: string };
  return { status: response.status, code: json.code };
}
