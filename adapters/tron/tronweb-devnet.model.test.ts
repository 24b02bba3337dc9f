/**
 * Model-based run of the gateway against the devnet (adapter-only: the contract suite checks each operation once;
 * here random interleavings of prepare, broadcast, rebroadcast and block production are checked against a model
 * of who owes whom). Invariants after every step: a prepared transaction is unknown until broadcast, a broadcast
 * one is pending until a block and confirmed after, a rebroadcast is accepted and never pays twice, and every
 * balance equals its start minus what it sent and the fees its confirmed transactions report, plus what it got.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { SignedTransaction } from '../../core/domain/model/chain.js';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import { devnetChainSubject } from '../../contracts-tests/harness/tron-devnet.js';
import type { TronWebChainGateway } from './tronweb-chain-gateway.js';

const TRX = 1_000_000n;
const START = 200n * TRX;
const N = 3;

interface Sent {
  readonly tx: SignedTransaction;
  readonly from: number;
  readonly to: number;
  readonly amount: bigint;
  readonly preparedAtBlock: number;
  phase: 'prepared' | 'pending' | 'confirmed';
}

interface Model {
  readonly sent: Sent[];
  block: number;
}

interface Real {
  readonly g: TronWebChainGateway;
  readonly accounts: readonly Signer[];
  mine(blocks: number): void;
}

async function expectBalances(m: Model, r: Real): Promise<void> {
  const expected = Array.from({ length: N }, () => START);
  for (const s of m.sent.filter((x) => x.phase === 'confirmed')) {
    const st = await r.g.getTransaction(s.tx.txid);
    expect(st.state).toBe('confirmed');
    expected[s.from]! -= s.amount + (st as { feeSun: bigint }).feeSun;
    expected[s.to]! += s.amount;
  }
  for (let i = 0; i < N; i++) expect(await r.g.getTrxBalance(r.accounts[i]!.address), `account ${i}`).toBe(expected[i]);
}

class Prepare implements fc.AsyncCommand<Model, Real> {
  constructor(readonly from: number, readonly to: number, readonly trx: number) {}
  check = (): boolean => this.from !== this.to;
  async run(m: Model, r: Real): Promise<void> {
    const tx = await r.g.prepare(r.accounts[this.from]!, { kind: 'transfer-trx', to: r.accounts[this.to]!.address, amountSun: BigInt(this.trx) * TRX });
    expect(await r.g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
    m.sent.push({ tx, from: this.from, to: this.to, amount: BigInt(this.trx) * TRX, preparedAtBlock: m.block, phase: 'prepared' });
  }
  toString = (): string => `prepare ${this.from}→${this.to} ${this.trx} TRX`;
}

class Broadcast implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  /** Only transactions still well inside their 60 s (20-block) validity window. */
  private target(m: Model): Sent | undefined {
    const live = m.sent.filter((s) => s.phase === 'confirmed' || m.block - s.preparedAtBlock < 15);
    return live[this.pick % Math.max(1, live.length)];
  }
  check = (m: Readonly<Model>): boolean => this.target(m as Model) !== undefined;
  async run(m: Model, r: Real): Promise<void> {
    const s = this.target(m)!;
    await r.g.broadcast(s.tx);
    if (s.phase === 'prepared') s.phase = 'pending';
    expect((await r.g.getTransaction(s.tx.txid)).state).toBe(s.phase);
    // The full node's balances include pending transactions, whose fees are not known yet: compare after blocks.
    if (!m.sent.some((x) => x.phase === 'pending')) await expectBalances(m, r);
  }
  toString = (): string => `broadcast #${this.pick}`;
}

class Mine implements fc.AsyncCommand<Model, Real> {
  constructor(readonly blocks: number) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    r.mine(this.blocks);
    m.block += this.blocks;
    for (const s of m.sent) if (s.phase === 'pending') s.phase = 'confirmed';
    for (const s of m.sent) expect((await r.g.getTransaction(s.tx.txid)).state).toBe(s.phase === 'prepared' ? 'unknown' : 'confirmed');
    await expectBalances(m, r);
  }
  toString = (): string => `mine ${this.blocks}`;
}

const commands = [
  fc.tuple(fc.nat(N - 1), fc.nat(N - 1), fc.integer({ min: 1, max: 3 })).map(([f, t, a]) => new Prepare(f, t, a)),
  fc.nat().map((p) => new Broadcast(p)),
  fc.integer({ min: 1, max: 3 }).map((b) => new Mine(b)),
];

it('random prepare/broadcast/rebroadcast/mine interleavings keep states and balances exact', async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 18 }), async (cmds) => {
      const s = await devnetChainSubject({ seed: 'model-run' });
      try {
        const accounts: Signer[] = [];
        for (let i = 0; i < N; i++) {
          const { address, privateKey } = await s.gateway.createAccount();
          await s.faucet.fundTrx(address, START);
          accounts.push({ address, privateKey: async () => privateKey });
        }
        const real: Real = { g: s.gateway as TronWebChainGateway, accounts, mine: (b) => void s.devnet.mine(b) };
        await fc.asyncModelRun(() => ({ model: { sent: [], block: 0 }, real }), cmds);
      } finally {
        await s.close?.();
      }
    }),
    { numRuns: 15 },
  );
}, 60_000);
