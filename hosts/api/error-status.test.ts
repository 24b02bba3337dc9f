import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainError, DomainError, ERROR_CATALOGUE, type ErrorCode } from '../../core/domain/errors.js';
import { expectAnswersDocumented, fails, userWithWallets } from './api-test-fixtures.js';
import { mapError } from './envelope.js';
import { HTTP_STATUS, httpStatusOf } from './error-status.js';
import { RateLimitRefusal } from './rate-limit.js';
import { startHarness, type ApiHarness } from './test-harness.js';

/** Spec §7's table, hand-copied: the codes with one stated status. */
const SPEC_7: Readonly<Record<string, number>> = {
  'BIZ-NETWORK-NOT-FOUND': 422, 'BIZ-ADDRESS-TYPE-NOT-ALLOWED': 422, 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS': 409,
  'BIZ-MAIN-ADDRESS-REQUIRED': 422, 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED': 422, 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED': 422,
  'BIZ-ASSET-NOT-FOUND': 422, 'BIZ-COMMAND-LOCKED': 409, 'BIZ-COMMAND-NOT-FOUND': 404, 'CHAIN-BALANCE-QUERY-FAILED': 502,
  'BIZ-CHAIN-RESOURCES-NOT-SUPPORTED': 422, 'BIZ-ADDRESS-TYPE-NOT-SUB': 422, 'RISK-REVIEW-BLOCKED': 403,
  'BIZ-COLLECTION-TASK-NOT-FOUND': 404, 'CASHIER-TOKEN-ACTIVE-EXISTS': 409, 'CASHIER-TOKEN-NOT-FOUND': 404,
  'CASHIER-TOKEN-ALREADY-DISABLED': 409, 'CASHIER-TOKEN-MISSING': 401, 'CASHIER-TOKEN-INVALID': 401,
  'BIZ-AMOUNT-BELOW-MINIMUM': 422, 'BIZ-WEBHOOK-URL-UNVERIFIED': 422,
  // §7 leaves these open ("status not stated", "listed without a described endpoint"): docs/decisions.md 2 says 422.
  'VALIDATION-ERROR': 422, 'BIZ-WEBHOOK-URL-BLOCKED': 422, 'BIZ-AMOUNT-INVALID': 422,
  // §7's closing line and §8.
  'RATE-LIMITED': 429,
};

/**
 * Spec §4's rows of BIZ-WALLET-ADDRESS-NOT-FOUND, hand-copied (§7: "404 on wallet reads; 422 on create collection and
 * create cashier token"), then the DESIGN.md routes that name an address: the staking routes take it in the path
 * like the wallet reads, POST /transfers in the body like create collection.
 */
const WALLET_ADDRESS_NOT_FOUND: Readonly<Record<string, number>> = {
  'GET /wallets/{address}': 404, 'GET /wallets/{address}/balances': 404, 'GET /wallets/{address}/resources': 404,
  'GET /wallets/{address}/deposits': 404,
  'POST /wallets/{address}/balances/refresh': 404, 'POST /collections': 422, 'POST /cashier/tokens': 422,
  'POST /transfers': 422, 'POST /wallets/{address}/stake': 404, 'POST /wallets/{address}/unstake': 404,
  'POST /wallets/{address}/withdraw-unstaked': 404, 'POST /wallets/{address}/vote': 404, 'POST /wallets/{address}/withdraw-reward': 404,
};

/** Spec §1's status table, plus what DESIGN.md adds: 400/408/431 from the HTTP server, 405, 413, 500, 503. */
const ALLOWED_STATUSES = [401, 403, 404, 409, 422, 429, 502, 400, 405, 408, 413, 431, 500, 503];

describe('the HTTP status of each catalogue code (hosts/api owns it, core names none)', () => {
  it('spec §7 codes answer with the spec\'s status; every status is one spec §1 or DESIGN.md knows', () => {
    for (const [code, status] of Object.entries(SPEC_7)) expect({ code, status: httpStatusOf(code as ErrorCode) }).toEqual({ code, status });
    for (const [code, status] of Object.entries(HTTP_STATUS)) expect(ALLOWED_STATUSES, code).toContain(status);
  });

  it('mapError: the host table\'s status, the route\'s own where it declares one, Retry-After from retryAfterMs', () => {
    const missing = new DomainError('BIZ-WALLET-ADDRESS-NOT-FOUND');
    expect(mapError(missing).reply.status).toBe(404);
    expect(mapError(missing, { 'BIZ-WALLET-ADDRESS-NOT-FOUND': 422 }).reply.status).toBe(422);
    expect(mapError(new DomainError('BIZ-COMMAND-LOCKED'), { 'BIZ-WALLET-ADDRESS-NOT-FOUND': 422 }).reply.status).toBe(409);
    expect(mapError(new DomainError('SERVICE-UNAVAILABLE', { retryAfterMs: 1_500 })).reply.headers).toEqual({ 'retry-after': '2' });
    const refused = mapError(new RateLimitRefusal({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' }, 42_000)).reply;
    expect({ status: refused.status, headers: refused.headers }).toEqual({
      status: 429, headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'retry-after': '42' },
    });
    expect(Object.keys(refused.headers)).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after']);
    const chain = mapError(new ChainError('CHAIN-NODE-UNAVAILABLE', 'node at 10.0.0.7 timed out'));
    expect({ status: chain.reply.status, unexpected: chain.unexpected, body: JSON.parse(chain.reply.body) }).toEqual({
      status: 502, unexpected: true, body: { code: 'CHAIN-NODE-UNAVAILABLE', message: ERROR_CATALOGUE['CHAIN-NODE-UNAVAILABLE'].message, data: {} },
    });
  });
});

/** Spec §7 gives BIZ-WALLET-ADDRESS-NOT-FOUND two statuses; the route table decides which, and /openapi.json follows. */
describe('BIZ-WALLET-ADDRESS-NOT-FOUND per route', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('every route that documents it answers the hand-copied status: 404 for a path address, 422 for a body one', () => {
    const routes = h.host.routes.filter((r) => r.docs.errors?.includes('BIZ-WALLET-ADDRESS-NOT-FOUND') === true);
    const statuses = Object.fromEntries(routes.map((r) => [
      `${r.method} ${r.path.replace(/^\/api/, '').replace(/:([A-Za-z]+)/g, '{$1}')}`,
      httpStatusOf('BIZ-WALLET-ADDRESS-NOT-FOUND', r.errorStatuses),
    ]));
    expect(statuses).toEqual(WALLET_ADDRESS_NOT_FOUND);
  });

  it('POST /transfers from an address that is not the caller\'s is 422, and a replay under the same key is the same 422', async () => {
    const u = await userWithWallets(h);
    const headers = { 'idempotency-key': randomUUID() };
    const body = { from_address: 'TUnknownAddressXXXXXXXXXXXXXXXXXXX', to_address: u.main, asset_symbol: 'TRX', amount: '1' };
    const first = await h.call('POST', '/api/transfers', { token: u.session, headers, body });
    fails(first, 422, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    const replay = await h.call('POST', '/api/transfers', { token: u.session, headers, body });
    expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
      .toEqual({ status: 422, text: first.text, replayed: 'true' });
    fails(await h.call('GET', '/api/wallets/TUnknownAddressXXXXXXXXXXXXXXXXXXX', { token: u.apiToken }), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
  });
});
