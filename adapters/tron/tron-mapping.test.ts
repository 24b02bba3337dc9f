/**
 * The pure halves of the gateway (adapter-only: the contract suite sees them only through a node): how caught
 * errors become port errors, how java-tron JSON becomes ChainResources and TransactionState.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainError, DomainError, InfrastructureError } from '../../core/domain/errors.js';
import { decodeNodeMessage, NodeRefusal, parseRetryAfter, toPortError, type CallKind } from './tron-errors.js';
import { energyPerSun, readDryRun, toChainResources, toTransactionState } from './tron-views.js';

const axiosError = (status?: number, code?: string, headers: Record<string, string> = {}, data?: unknown) =>
  Object.assign(new Error('axios'), { isAxiosError: true, code, response: status === undefined ? undefined : { status, headers, data } });
const hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

describe('toPortError', () => {
  // [title, error, kind, code, transient, nodeCode]
  const cases: Array<[string, unknown, CallKind, string, boolean, string | null]> = [
    ['unreachable, balance read', axiosError(undefined, 'ECONNREFUSED'), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true, null],
    ['reset, node read', axiosError(undefined, 'ECONNRESET'), 'node-read', 'CHAIN-NODE-UNAVAILABLE', true, null],
    ['timeout, build', axiosError(undefined, 'ETIMEDOUT'), 'build', 'CHAIN-NODE-UNAVAILABLE', true, null],
    ['reply lost after sending, broadcast', axiosError(undefined, 'ECONNABORTED'), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true, null],
    ['HTTP 503, balance read', axiosError(503), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true, 'HTTP_503'],
    ['HTTP 500, broadcast', axiosError(500), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true, 'HTTP_500'],
    ['HTTP 502, build', axiosError(502), 'build', 'CHAIN-NODE-UNAVAILABLE', true, 'HTTP_502'],
    ['HTTP 429, node read', axiosError(429), 'node-read', 'CHAIN-NODE-UNAVAILABLE', true, 'HTTP_429'],
    ['HTTP 403 (over quota), broadcast', axiosError(403), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true, 'HTTP_403'],
    ['HTTP 401 (key refused), balance read', axiosError(401), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true, 'HTTP_401'],
    ['HTTP 400, node read', axiosError(400), 'node-read', 'CHAIN-NODE-UNAVAILABLE', false, 'HTTP_400'],
    ['HTTP 404, broadcast', axiosError(404), 'broadcast', 'CHAIN-BROADCAST-FAILED', false, 'HTTP_404'],
    ['fetch ECONNREFUSED', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true, null],
    ['refusal, broadcast', new NodeRefusal('balance is not sufficient', 'CONTRACT_VALIDATE_ERROR'), 'broadcast', 'CHAIN-BROADCAST-FAILED', false, 'CONTRACT_VALIDATE_ERROR'],
    ['TaPoS, broadcast', new NodeRefusal('Tapos check error.', 'TAPOS_ERROR'), 'broadcast', 'CHAIN-BROADCAST-FAILED', false, 'TAPOS_ERROR'],
    ['expired, broadcast', new NodeRefusal('Transaction expired', 'TRANSACTION_EXPIRATION_ERROR'), 'broadcast', 'CHAIN-BROADCAST-FAILED', false, 'TRANSACTION_EXPIRATION_ERROR'],
    ['bad signature, broadcast', new NodeRefusal('Validate signature error', 'SIGERROR'), 'broadcast', 'CHAIN-BROADCAST-FAILED', false, 'SIGERROR'],
    ['busy, broadcast', new NodeRefusal('busy', 'SERVER_BUSY'), 'broadcast', 'CHAIN-BROADCAST-FAILED', true, 'SERVER_BUSY'],
    ['unsolidified, broadcast', new NodeRefusal('Block unsolidified.', 'BLOCK_UNSOLIDIFIED'), 'broadcast', 'CHAIN-BROADCAST-FAILED', true, 'BLOCK_UNSOLIDIFIED'],
    ['refusal, build', new NodeRefusal('no OwnerAccount'), 'build', 'CHAIN-TRANSACTION-FAILED', false, null],
    ['refusal, balance read', new NodeRefusal('no contract'), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', false, null],
    ['daily quota body, node read', new NodeRefusal('Exceed the user daily usage (100000), the maximum query frequency is 1 time per second'),
      'node-read', 'CHAIN-NODE-UNAVAILABLE', true, 'RATE_LIMITED'],
    ['rps body, broadcast', new NodeRefusal('request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s'),
      'broadcast', 'CHAIN-NODE-UNAVAILABLE', true, 'RATE_LIMITED'],
    ['frequency body, balance read', new NodeRefusal('The key exceeds the frequency limit(15), and the query server is suspended for 30s'),
      'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true, 'RATE_LIMITED'],
    ['a plain bug', new TypeError('x is undefined'), 'node-read', 'CHAIN-NODE-UNAVAILABLE', false, null],
  ];
  it.each(cases)('%s', (_, error, kind, code, transient, nodeCode) => {
    const e = toPortError(error, kind, 'op');
    expect(e).toBeInstanceOf(ChainError);
    expect(e).toMatchObject({ code, transient, nodeCode });
    expect(e.message.startsWith('op: ')).toBe(true);
  });

  it('403 and 429 carry the Retry-After header (seconds or HTTP-date against the reply\'s Date); a quota text names its wait', () => {
    expect(toPortError(axiosError(429, undefined, { 'retry-after': '7' }), 'node-read', 'op')).toMatchObject({ retryAfterMs: 7_000, transient: true });
    const dated = axiosError(403, undefined, { 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT', date: 'Wed, 21 Oct 2026 07:28:00 GMT' });
    expect(toPortError(dated, 'broadcast', 'op')).toMatchObject({ retryAfterMs: 30_000, nodeCode: 'HTTP_403' });
    const withBody = axiosError(429, undefined, {}, { Error: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s' });
    const e = toPortError(withBody, 'node-read', 'op') as ChainError;
    expect(e.retryAfterMs).toBe(30_000);
    expect(e.message).toContain('frequency limit');
    expect(toPortError(new NodeRefusal('request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s'), 'node-read', 'op'))
      .toMatchObject({ retryAfterMs: 5_000 });
    expect(toPortError(axiosError(503), 'node-read', 'op')).toMatchObject({ retryAfterMs: null });
  });

  it('reads Retry-After through AxiosHeaders\' get()', () => {
    const headers = { get: (name: string) => (name.toLowerCase() === 'retry-after' ? '2' : undefined) };
    const e = Object.assign(new Error('axios'), { isAxiosError: true, response: { status: 429, headers } });
    expect(toPortError(e, 'node-read', 'op')).toMatchObject({ retryAfterMs: 2_000 });
  });

  it('passes port errors through untouched and makes any other InfrastructureError a ChainError keeping its code', () => {
    const domain = new DomainError('VALIDATION-ERROR', { field: 'to' });
    const chain = new ChainError('CHAIN-NODE-UNAVAILABLE', 'x');
    expect(toPortError(domain, 'broadcast', 'op')).toBe(domain);
    expect(toPortError(chain, 'balance-read', 'op')).toBe(chain);
    const plain = toPortError(new InfrastructureError('CHAIN-TRANSACTION-FAILED', 'y', { transient: false }), 'build', 'op');
    expect(plain).toBeInstanceOf(ChainError);
    expect(plain).toMatchObject({ code: 'CHAIN-TRANSACTION-FAILED', transient: false });
  });

  it('names the node code in the message', () => {
    expect(toPortError(new NodeRefusal('Dup transaction.', 'DUP_TRANSACTION_ERROR'), 'broadcast', 'broadcast ab').message)
      .toBe('broadcast ab: DUP_TRANSACTION_ERROR: Dup transaction.');
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP-dates, never negative, capped at a day; null when absent or unreadable', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(' 1.5 ')).toBe(1_500);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', undefined, Date.parse('Wed, 21 Oct 2026 07:27:00 GMT'))).toBe(60_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', 'Wed, 21 Oct 2026 07:29:00 GMT', 0)).toBe(0);
    expect(parseRetryAfter('9999999')).toBe(86_400_000);
    for (const bad of [undefined, null, '', 'soon', '-5', {}]) expect(parseRetryAfter(bad), String(bad)).toBeNull();
  });
});

describe('readDryRun', () => {
  const revert = { result: { result: true, message: hex('REVERT opcode executed') }, energy_used: 520, transaction: { ret: [{ ret: 'FAILED' }] } };
  it('a revert needs all three signs: result true, the REVERT message (hex or text) and ret FAILED', () => {
    expect(readDryRun(revert)).toEqual({ outcome: 'revert', reason: 'REVERT opcode executed' });
    expect(readDryRun({ ...revert, result: { result: true, message: 'REVERT opcode executed' } })).toMatchObject({ outcome: 'revert' });
    expect(readDryRun({ ...revert, result: { message: revert.result.message } })).toEqual({ outcome: 'unusable' });
    expect(readDryRun({ ...revert, transaction: { ret: [{}] } })).toEqual({ outcome: 'unusable' });
    expect(readDryRun({ ...revert, result: { result: true, message: hex('OUT_OF_TIME') } })).toEqual({ outcome: 'unusable' });
  });

  it('a revert reason encoded as Error(string) is decoded', () => {
    const reason = 'Blacklistable: account is blacklisted';
    const data = '08c379a0' + (32).toString(16).padStart(64, '0') + reason.length.toString(16).padStart(64, '0')
      + hex(reason).padEnd(Math.ceil(reason.length / 32) * 64, '0');
    expect(readDryRun({ ...revert, constant_result: [data] })).toEqual({ outcome: 'revert', reason });
  });

  it('a successful call with energy is ok; no energy, a refusal or a code is unusable', () => {
    expect(readDryRun({ result: { result: true }, energy_used: 64_285, transaction: { ret: [{}] } })).toEqual({ outcome: 'ok', energy: 64_285 });
    expect(readDryRun({ result: { result: true }, energy_used: 0 })).toEqual({ outcome: 'unusable' });
    expect(readDryRun({ result: { code: 'CONTRACT_EXE_ERROR', message: hex('REVERT opcode executed') }, energy_used: 500 })).toEqual({ outcome: 'unusable' });
    expect(readDryRun({})).toEqual({ outcome: 'unusable' });
  });
});

describe('decodeNodeMessage', () => {
  it('decodes hex-printed text and leaves readable or non-text input alone', () => {
    expect(decodeNodeMessage(Buffer.from('Contract validate error : balance is not sufficient.').toString('hex')))
      .toBe('Contract validate error : balance is not sufficient.');
    expect(decodeNodeMessage('plain words')).toBe('plain words');
    expect(decodeNodeMessage('00ff00')).toBe('00ff00');
    expect(decodeNodeMessage(undefined)).toBe('');
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'abc XYZ:.,-0123'.split('')), minLength: 1 }), (text) => {
      expect(decodeNodeMessage(Buffer.from(text, 'utf8').toString('hex'))).toBe(text);
    }), { numRuns: runs(100) });
  });
});

describe('toChainResources', () => {
  it('a missing account (empty replies) is all zero with the 600 free bandwidth', () => {
    const r = toChainResources({}, {}, 0, { delegatedTo: [], receivedFrom: [] });
    expect(r.energy).toEqual({ available: 0, used: 0, limit: 0, stakedSun: 0n, delegatedOutSun: 0n, receivedSun: 0n });
    expect(r.bandwidth).toMatchObject({ freeAvailable: 600, freeUsed: 0, freeLimit: 600, stakedLimit: 0 });
    expect(r.withdrawableSun).toBe(0n);
  });

  it('staked counts own plus delegated-out stake; withdrawable counts only expired unstaking at chain time', () => {
    const r = toChainResources(
      {
        frozenV2: [{ amount: 5_000_000 }, { type: 'ENERGY', amount: 60_000_000 }, { type: 'TRON_POWER', amount: 9 }],
        unfrozenV2: [{ unfreeze_amount: 2_000_000, unfreeze_expire_time: 1_000 }, { type: 'ENERGY', unfreeze_amount: 3_000_000, unfreeze_expire_time: 5_000 }],
        delegated_frozenV2_balance_for_bandwidth: 1_000_000,
        account_resource: { delegated_frozenV2_balance_for_energy: 40_000_000, acquired_delegated_frozenV2_balance_for_energy: 7_000_000 },
      },
      { EnergyLimit: 670, EnergyUsed: 700, freeNetLimit: 600, freeNetUsed: 268, NetLimit: 5, NetUsed: 2 },
      4_999,
      { delegatedTo: ['TA'], receivedFrom: [] },
    );
    expect(r.energy).toEqual({ available: 0, used: 700, limit: 670, stakedSun: 100_000_000n, delegatedOutSun: 40_000_000n, receivedSun: 7_000_000n });
    expect(r.bandwidth).toMatchObject({ freeAvailable: 332, freeUsed: 268, stakedAvailable: 3, stakedSun: 6_000_000n, delegatedOutSun: 1_000_000n });
    expect(r.withdrawableSun).toBe(2_000_000n);
    expect(r.unstakingSun).toBe(3_000_000n);
    expect(r.delegatedTo).toEqual(['TA']);
  });

  it('available never goes negative and never exceeds the limit', () => {
    fc.assert(fc.property(fc.nat(10_000_000), fc.nat(10_000_000), fc.nat(2_000), fc.nat(2_000), (limit, used, free, freeUsed) => {
      const r = toChainResources({}, { EnergyLimit: limit, EnergyUsed: used, freeNetLimit: free, freeNetUsed: freeUsed }, 0, { delegatedTo: [], receivedFrom: [] });
      expect(r.energy.available).toBe(Math.max(0, limit - used));
      expect(r.bandwidth.freeAvailable).toBe(Math.max(0, free - freeUsed));
    }), { numRuns: runs(100) });
  });
});

describe('toTransactionState', () => {
  it('a successful call is confirmed with fee (and its bandwidth and energy parts), energy and confirmations counted from its block', () => {
    expect(toTransactionState({
      id: 'x', blockNumber: 10, fee: 6_773_500, receipt: { result: 'SUCCESS', energy_usage_total: 64_285, net_fee: 345_000, energy_fee: 6_428_500 },
    }, 12, false)).toEqual({
      state: 'confirmed', blockNumber: 10, confirmations: 3, solidified: false, feeSun: 6_773_500n, netFeeSun: 345_000n, energyFeeSun: 6_428_500n,
      energyUsed: 64_285,
    });
    expect(toTransactionState({ id: 'x', blockNumber: 10 }, 10, true)).toMatchObject({ state: 'confirmed', confirmations: 1, feeSun: 0n, energyUsed: 0 });
  });

  it('a VM failure is failed with the receipt result; a FAILED result without one uses the decoded message', () => {
    expect(toTransactionState({ id: 'x', blockNumber: 7, fee: 100_000, result: 'FAILED', receipt: { result: 'OUT_OF_ENERGY' } }, 9, true))
      .toEqual({ state: 'failed', blockNumber: 7, reason: 'OUT_OF_ENERGY', feeSun: 100_000n, netFeeSun: 0n, energyFeeSun: 0n });
    expect(toTransactionState({ id: 'x', blockNumber: 7, result: 'FAILED', resMessage: Buffer.from('REVERT opcode executed').toString('hex') }, 9, true))
      .toMatchObject({ state: 'failed', reason: 'REVERT opcode executed' });
  });
});

describe('energyPerSun', () => {
  it('is TotalEnergyLimit / TotalEnergyWeight per SUN, 0 when the node omits either', () => {
    expect(energyPerSun({ TotalEnergyLimit: 180_000_000_000, TotalEnergyWeight: 18_000_000_000 })).toBeCloseTo(1e-5, 12);
    expect(energyPerSun({ TotalEnergyLimit: 180_000_000_000 })).toBe(0);
    expect(energyPerSun({})).toBe(0);
  });
});
