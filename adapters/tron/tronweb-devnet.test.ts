/**
 * The ChainGateway contract against the in-process devnet (manual blocks, virtual clock), driven through real
 * tronweb over HTTP on a free port. The devnet serves the pending pool, so `pending` is asserted too, and it is
 * hostile on demand (node faults, quotas, split endpoints, solidified jitter, weight drift, reverting USDT).
 */
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../core/domain/errors.js';
import { describeChainGatewayContract } from '../../contracts-tests/chain-gateway.contract.js';
import { DEVNET_CHAIN_CAPABILITIES, devnetChainSubject } from '../../contracts-tests/harness/tron-devnet.js';
import { TronWebChainGateway } from './tronweb-chain-gateway.js';

describeChainGatewayContract('TronWebChainGateway on the devnet', (opts) => devnetChainSubject(opts), {
  capabilities: DEVNET_CHAIN_CAPABILITIES,
});

// The per-block decorator keeps the contract (the cache's own rules: caching-chain-gateway.test.ts). Not the hostile
// cases: they aim faults and quotas at the node calls of reads asked again, which the cache answers without a call.
describeChainGatewayContract('CachingChainGateway over TronWebChainGateway on the devnet', (opts) => devnetChainSubject({ ...opts, perBlock: true }), {
  capabilities: { ...DEVNET_CHAIN_CAPABILITIES, hostile: false },
});

describe('TronWebChainGateway on a split devnet without solidityHost (adapter-only: the contract always configures it)', () => {
  it('is a configuration error, reported as a non-transient ChainError, not a silent success', async () => {
    const s = await devnetChainSubject({ splitEndpoints: true });
    try {
      const g = new TronWebChainGateway({ fullHost: s.devnet.url, usdtContract: s.usdtContract, timeoutMs: 5_000 });
      expect((await g.head()).number).toBeGreaterThanOrEqual(0);
      const e = await g.solidifiedHead().then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(ChainError);
      expect(e).toMatchObject({ code: 'CHAIN-NODE-UNAVAILABLE', transient: false, nodeCode: 'HTTP_404' });
    } finally {
      await s.close?.();
    }
  });
});

type Subject = Awaited<ReturnType<typeof devnetChainSubject>>;

/**
 * On a fresh devnet subject: a funded payer, a signer of TRX transfers from it to a fresh payee (built, not sent),
 * and one 1 TRX transfer already broadcast; the subject is closed afterwards.
 */
async function withBroadcastTransfer(seed: string, body: (t: {
  s: Subject; transfer: (amountSun: bigint) => ReturnType<Subject['gateway']['prepare']>; tx: Awaited<ReturnType<Subject['gateway']['prepare']>>;
}) => Promise<void>): Promise<void> {
  const s = await devnetChainSubject({ seed });
  try {
    const payer = await s.gateway.createAccount();
    const payee = await s.gateway.createAccount();
    s.devnet.fund(payer.address, 10_000_000);
    s.devnet.mine(1);
    const signer = { address: payer.address, privateKey: async () => payer.privateKey };
    const transfer = (amountSun: bigint) => s.gateway.prepare(signer, { kind: 'transfer-trx', to: payee.address, amountSun });
    const tx = await transfer(1_000_000n);
    await s.gateway.broadcast(tx);
    await body({ s, transfer, tx });
  } finally {
    await s.close?.();
  }
}

describe('TronWebChainGateway transaction lookups (adapter-only: the contract cannot see how many calls a lookup took)', () => {
  it('asks the solidity endpoint about a transaction only once the solidified head has reached its block', async () => {
    await withBroadcastTransfer('lookup-calls', async ({ s, tx }) => {
      const { devnet, gateway: g } = s;
      devnet.mine(1);
      const perTx = (): number => devnet.nodeCalls()['walletsolidity/gettransactioninfobyid'] ?? 0;
      const before = perTx();
      const shallow = await g.getTransaction(tx.txid);
      expect(shallow).toMatchObject({ state: 'confirmed', solidified: false });
      expect(perTx()).toBe(before);
      devnet.mine(s.solidifyLag + 1);
      expect(devnet.info().solidified_number).toBeGreaterThanOrEqual((shallow as { blockNumber: number }).blockNumber);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed', solidified: true });
      expect(perTx()).toBe(before + 1);
    });
  });
});

describe('TronWebChainGateway.findInSolidified against a node behind (adapter-only: the devnet fault)', () => {
  it('a landed transaction that a node 100 blocks behind does not show is included in the solidified blocks of its window', async () => {
    await withBroadcastTransfer('dead-proof', async ({ s, transfer, tx }) => {
      const { devnet, gateway: g } = s;
      devnet.setFaults({ stale_tx_lookups: 100 });
      devnet.advance(tx.expiresAt - devnet.info().virtual_time + 3_000);
      devnet.mine(s.solidifyLag + 1);
      expect((await g.solidifiedHead()).timestamp).toBeGreaterThan(tx.expiresAt);
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      expect(await g.findInSolidified(tx)).toBe('included');
      // A transaction signed but never sent, with the same window: absent.
      const unsent = await transfer(2_000_000n);
      expect(unsent.txid).not.toBe(tx.txid);
      devnet.advance(unsent.expiresAt - devnet.info().virtual_time + 3_000);
      devnet.mine(s.solidifyLag + 1);
      expect(await g.findInSolidified(unsent)).toBe('absent');
    });
  });
});
