import { Writable } from 'node:stream';
import type { Container } from 'inversify';
import { pino } from 'pino';
import { ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type CompositionOverrides } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import type { ApiHost } from './api-app.js';
import { startApiServer, type RunningServer } from './api-server.js';
import { REDACT_PATHS } from './logger.js';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import type { RateLimits } from './rate-limit.js';

/** What a test gets back from one HTTP call. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body (undefined when not JSON). */
  readonly json: { code: string; message: string; data: any } & Record<string, any>;
}

/** One call made through the harness: what was asked and what came back. */
export interface RecordedCall {
  readonly method: string;
  /** The request path without the query string. */
  readonly path: string;
  readonly result: HttpResult;
}

export interface CallOptions {
  readonly token?: string;
  readonly body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  readonly rawBody?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

/**
 * Adapter replacements of the harness: those of the composition, plus a rate limiter instance (a Redis limiter with
 * a per-test key prefix, so runs sharing one Redis never count each other's hits).
 */
export type HarnessOverrides = CompositionOverrides & {
  readonly rateLimiter?: RateLimiter;
  /** Extra configuration variables (TRUSTED_PROXY_HOPS, to act from several client networks through X-Forwarded-For). */
  readonly env?: Readonly<Record<string, string>>;
};

/**
 * Every test signs its users up from 127.0.0.1, so the per-client-address throttles of the account routes would
 * count a whole file's sign-ups as one client's. The harness lifts them; the throttle tests pass the defaults back
 * through `rateLimits` (the per-e-mail and per-user limits stay as shipped everywhere).
 */
export const HARNESS_CLIENT_LIMITS: Partial<RateLimits> = {
  'register-ip': 1_000_000, 'verify-ip': 1_000_000, 'login-ip': 1_000_000, 'login-ip-hour': 1_000_000,
  'reset-request-ip': 1_000_000, 'reset-confirm-ip': 1_000_000,
};

/** A composed API on memory adapters, a manual clock and an in-process devnet, served on a loopback port. */
export interface ApiHarness {
  readonly url: string;
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly devnet: Devnet;
  readonly host: ApiHost;
  /** The composition's container, to reach an adapter behind the API (the cipher, the stores) in a check. */
  readonly container: Container;
  readonly adminToken: string;
  /** Every log line written so far (JSON strings). */
  readonly logLines: string[];
  /** Every call made through `call`, in order (for checks over all answers of a test file). */
  readonly calls: RecordedCall[];
  call(method: string, path: string, options?: CallOptions): Promise<HttpResult>;
  close(): Promise<void>;
}

/**
 * Starts the harness; `overrides` replace adapters (a chain double, rate-limit overrides). Given as a function, they
 * are built once the devnet runs (a chain wrapper around the devnet's gateway, say).
 */
export async function startHarness(
  overridesOrFactory: HarnessOverrides | ((devnet: Devnet) => HarnessOverrides) = {},
): Promise<ApiHarness> {
  const devnet = await startDevnet({ blockMs: 0, seed: 'api-tests' });
  const { rateLimiter, env, ...overrides } = typeof overridesOrFactory === 'function' ? overridesOrFactory(devnet) : overridesOrFactory;
  const clock = new ManualClock();
  const mailer = new RecordingMailer();
  const logLines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { logLines.push(...String(chunk).split('\n').filter((l) => l !== '')); done(); } });
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  const config = loadConfig({
    TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ADMIN_TOKEN: 'admin-token-for-tests-0123456789abcdef',
    WEBHOOK_ALLOW_LOCAL: 'true', ...env,
  }, { mode: 'dev' });
  const composition = composeContainer(config, {
    // The API tests seed balances for collections without energy on chain: the energy check (issue #34) is asked for.
    clock, mailer, logger, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), energyCheck: false, ...overrides,
    rateLimits: { ...HARNESS_CLIENT_LIMITS, ...overrides.rateLimits },
  });
  if (rateLimiter !== undefined) composition.container.rebind(TOKENS.RateLimiter).toConstantValue(rateLimiter);
  const host = composition.container.get(TOKENS.ApiHost);
  const server: RunningServer = await startApiServer(host.h3, { port: 0 });
  const calls: RecordedCall[] = [];
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<HttpResult> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | Uint8Array | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let json: any;
    try { json = JSON.parse(text); } catch { json = undefined; }
    const result = { status: response.status, headers: response.headers, text, json };
    calls.push({ method, path: path.split('?')[0] ?? path, result });
    return result;
  };
  return {
    url: server.url, clock, mailer, devnet, host, container: composition.container, adminToken: composition.adminToken, logLines, calls, call,
    close: async () => {
      await server.close();
      await composition.close();
      await devnet.close();
    },
  };
}
