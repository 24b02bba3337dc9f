import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startApiServer, type RunningServer } from './api-server.js';

/**
 * Behind a reverse proxy every client reaches the API from the proxy's address. TRUSTED_PROXY_HOPS, read from the
 * environment like any deployment's, lets the per-client-address throttles count the address the proxy appended to
 * X-Forwarded-For instead, and nothing a client writes there itself. Every request here comes from 127.0.0.1, the
 * socket's peer, playing the proxy; the per-address login limit is lowered to 3 a minute (the clock never moves).
 */
const LOGIN_PER_ADDRESS = 3;

interface Api {
  readonly server: RunningServer;
  readonly composition: Composition;
}

async function startApi(env: Record<string, string>): Promise<Api> {
  const config = loadConfig({ ADMIN_TOKEN: 'admin-token-for-tests-0123456789abcdef', ...env }, { mode: 'dev' });
  const composition = composeContainer(config, {
    clock: new ManualClock(), mailer: new RecordingMailer(), logger: pino({ level: 'silent' }),
    hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), rateLimits: { 'login-ip': LOGIN_PER_ADDRESS },
  });
  const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
  return { server, composition };
}

async function stopApi(api: Api): Promise<void> {
  await api.server.close();
  await api.composition.close();
}

/** One failed login for a fresh e-mail (so only the per-address limit can refuse it), with the header as the proxy sends it. */
async function login(api: Api, forwardedFor?: string): Promise<number> {
  const response = await fetch(`${api.server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, password: 'wrong password!' }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The statuses of `times` logins made one after the other (the order of spending is then exact). */
async function logins(api: Api, times: number, forwardedFor?: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push(await login(api, forwardedFor));
  return statuses;
}

const SPENT = [...Array<number>(LOGIN_PER_ADDRESS).fill(401), 429];

describe('TRUSTED_PROXY_HOPS=1: one proxy appends each client\'s address to X-Forwarded-For', () => {
  let api: Api;
  beforeAll(async () => { api = await startApi({ TRUSTED_PROXY_HOPS: '1' }); });
  afterAll(async () => { await stopApi(api); });

  it('two clients behind the proxy have their own buckets: one spending its login quota leaves the other alone', async () => {
    expect(await logins(api, LOGIN_PER_ADDRESS + 1, '203.0.113.7')).toEqual(SPENT);
    expect(await logins(api, LOGIN_PER_ADDRESS, '198.51.100.9')).toEqual(Array(LOGIN_PER_ADDRESS).fill(401));
    // The same client over IPv6-mapped IPv4 is the same bucket.
    expect(await login(api, '::ffff:203.0.113.7')).toBe(429);
  });

  it('an IPv6 client counts by its /64: rotating addresses inside it buys no fresh bucket; the next /64 has its own', async () => {
    const host = (n: number): string => `2001:db8:1:2::${n.toString(16)}`;
    expect(await Promise.all([1, 2, 3].map((n) => login(api, host(n))))).toEqual(Array(LOGIN_PER_ADDRESS).fill(401));
    // A fourth address of the same /64, and one written with a port: the same spent bucket.
    expect(await login(api, host(0xbeef))).toBe(429);
    expect(await login(api, `[${host(7)}]:443`)).toBe(429);
    expect(await login(api, '2001:db8:1:3::1')).toBe(401);
  });

  it('a forged leftmost entry spends the sender\'s own bucket, never the victim\'s, and never buys a fresh one', async () => {
    const victim = '198.51.100.20';
    const attacker = '203.0.113.66';
    // The attacker sends "X-Forwarded-For: <victim>"; the proxy appends the address it really came from.
    expect(await logins(api, LOGIN_PER_ADDRESS + 1, `${victim}, ${attacker}`)).toEqual(SPENT);
    expect(await login(api, `${randomUUID()}, 192.0.2.1, ${attacker}`)).toBe(429);
    expect(await login(api, `, unknown, ${attacker}`)).toBe(429);
    expect(await logins(api, LOGIN_PER_ADDRESS, victim)).toEqual(Array(LOGIN_PER_ADDRESS).fill(401));
  });

  it('a request without the header (from the proxy itself) counts against the peer', async () => {
    expect(await logins(api, LOGIN_PER_ADDRESS + 1)).toEqual(SPENT);
    expect(await login(api, 'not-an-address')).toBe(429);
    expect(await login(api, '192.0.2.55')).toBe(401);
  });
});

describe('TRUSTED_PROXY_HOPS unset (0): X-Forwarded-For is ignored', () => {
  let api: Api;
  beforeAll(async () => { api = await startApi({}); });
  afterAll(async () => { await stopApi(api); });

  it('every client counts against the socket\'s peer, whatever it writes in the header', async () => {
    expect(await logins(api, LOGIN_PER_ADDRESS, '203.0.113.7')).toEqual(Array(LOGIN_PER_ADDRESS).fill(401));
    expect(await login(api, '198.51.100.9')).toBe(429);
    expect(await login(api)).toBe(429);
  });
});
