/**
 * The pure halves of the gateway (adapter-only: the contract suite sees them only through a node): how caught
 * errors become port errors, how java-tron JSON becomes ChainResources and TransactionState.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import { decodeNodeMessage, NodeRefusal, toPortError, type CallKind } from './tron-errors.js';
import { energyPerSun, toChainResources, toTransactionState } from './tron-views.js';

const axiosError = (status?: number, code?: string) =>
  Object.assign(new Error('axios'), { isAxiosError: true, code, response: status === undefined ? undefined : { status } });

describe('toPortError', () => {
  const cases: Array<[string, unknown, CallKind, string, boolean]> = [
    ['unreachable, balance read', axiosError(undefined, 'ECONNREFUSED'), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true],
    ['unreachable, node read', axiosError(undefined, 'ECONNRESET'), 'node-read', 'CHAIN-NODE-UNAVAILABLE', true],
    ['unreachable, build', axiosError(undefined, 'ETIMEDOUT'), 'build', 'CHAIN-NODE-UNAVAILABLE', true],
    ['unreachable, broadcast', axiosError(undefined, 'ECONNABORTED'), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true],
    ['HTTP 503, balance read', axiosError(503), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', true],
    ['HTTP 429, node read', axiosError(429), 'node-read', 'CHAIN-NODE-UNAVAILABLE', true],
    ['HTTP 400, node read', axiosError(400), 'node-read', 'CHAIN-NODE-UNAVAILABLE', false],
    ['fetch ECONNREFUSED', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'broadcast', 'CHAIN-NODE-UNAVAILABLE', true],
    ['refusal, broadcast', new NodeRefusal('balance is not sufficient', 'CONTRACT_VALIDATE_ERROR'), 'broadcast', 'CHAIN-BROADCAST-FAILED', false],
    ['busy, broadcast', new NodeRefusal('busy', 'SERVER_BUSY'), 'broadcast', 'CHAIN-BROADCAST-FAILED', true],
    ['refusal, build', new NodeRefusal('no OwnerAccount'), 'build', 'CHAIN-TRANSACTION-FAILED', false],
    ['refusal, balance read', new NodeRefusal('no contract'), 'balance-read', 'CHAIN-BALANCE-QUERY-FAILED', false],
    ['a plain bug', new TypeError('x is undefined'), 'node-read', 'CHAIN-NODE-UNAVAILABLE', false],
  ];
  it.each(cases)('%s', (_, error, kind, code, transient) => {
    const e = toPortError(error, kind, 'op');
    expect(e).toBeInstanceOf(InfrastructureError);
    expect(e).toMatchObject({ code, transient, status: 502 });
    expect(e.message.startsWith('op: ')).toBe(true);
  });

  it('passes port errors through untouched', () => {
    const domain = new DomainError('VALIDATION-ERROR', { field: 'to' });
    const infra = new InfrastructureError('CHAIN-NODE-UNAVAILABLE', 'x');
    expect(toPortError(domain, 'broadcast', 'op')).toBe(domain);
    expect(toPortError(infra, 'balance-read', 'op')).toBe(infra);
  });

  it('names the node code in the message', () => {
    expect(toPortError(new NodeRefusal('Dup transaction.', 'DUP_TRANSACTION_ERROR'), 'broadcast', 'broadcast ab').message)
      .toBe('broadcast ab: DUP_TRANSACTION_ERROR: Dup transaction.');
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
    }), { numRuns: 100 });
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
    expect(r.delegatedTo).toEqual(['TA']);
  });

  it('available never goes negative and never exceeds the limit', () => {
    fc.assert(fc.property(fc.nat(10_000_000), fc.nat(10_000_000), fc.nat(2_000), fc.nat(2_000), (limit, used, free, freeUsed) => {
      const r = toChainResources({}, { EnergyLimit: limit, EnergyUsed: used, freeNetLimit: free, freeNetUsed: freeUsed }, 0, { delegatedTo: [], receivedFrom: [] });
      expect(r.energy.available).toBe(Math.max(0, limit - used));
      expect(r.bandwidth.freeAvailable).toBe(Math.max(0, free - freeUsed));
    }), { numRuns: 100 });
  });
});

describe('toTransactionState', () => {
  it('a successful call is confirmed with fee, energy and confirmations counted from its block', () => {
    expect(toTransactionState({ id: 'x', blockNumber: 10, fee: 345_000, receipt: { result: 'SUCCESS', energy_usage_total: 64_285 } }, 12, false))
      .toEqual({ state: 'confirmed', blockNumber: 10, confirmations: 3, solidified: false, feeSun: 345_000n, energyUsed: 64_285 });
    expect(toTransactionState({ id: 'x', blockNumber: 10 }, 10, true)).toMatchObject({ state: 'confirmed', confirmations: 1, feeSun: 0n, energyUsed: 0 });
  });

  it('a VM failure is failed with the receipt result; a FAILED result without one uses the decoded message', () => {
    expect(toTransactionState({ id: 'x', blockNumber: 7, fee: 100_000, result: 'FAILED', receipt: { result: 'OUT_OF_ENERGY' } }, 9, true))
      .toEqual({ state: 'failed', blockNumber: 7, reason: 'OUT_OF_ENERGY', feeSun: 100_000n });
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
