import { utils as tronUtils } from 'tronweb';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { ChainError, DomainError, InfrastructureError, type ErrorCode } from '../core/domain/errors.js';
import type { SignedTransaction, TransactionState } from '../core/domain/model/chain.js';
import type { ChainGateway, Signer, TransactionIntent } from '../core/ports/chain-gateway.port.js';
import { itUnless } from './support/skipped.js';

/** Test-only powers over the chain: a devnet implements them directly, a real-node run with a pre-funded key. */
export interface ChainFaucet {
  /** Gives `sun` TRX to `address` (activating it); resolves once gateway reads see the funds. */
  fundTrx(address: string, sun: bigint): Promise<void>;
  /** Gives `amount` of the subject's USDT to `address`; resolves once gateway reads see it. */
  fundToken(address: string, amount: bigint): Promise<void>;
  /** Lets `blocks` more blocks be produced (devnet: mines them; real node: waits for them). */
  mine(blocks: number): Promise<void>;
  /** Moves chain time forward by `ms` (capability `virtualTime`). */
  advance?(ms: number): Promise<void>;
  /** Makes the node unreachable or reachable again (capability `faults`). */
  setNodeDown?(down: boolean): Promise<void>;
  /** Makes the node refuse every broadcast with this java-tron response code; null restores it (capability `faults`). */
  rejectBroadcasts?(code: string | null): Promise<void>;
  /** The node accepts the next `count` broadcasts but loses them before any block (capability `faults`). */
  dropNextBroadcasts?(count: number): Promise<void>;
  /** Freezes or releases the solidified head (capability `faults`). */
  stallSolidification?(stalled: boolean): Promise<void>;
  /**
   * The next `times` (default 1) node calls to `endpoint` ('wallet/getblock', 'walletsolidity/getnowblock',
   * 'wallet/broadcasttransaction', 'wallet/*', '*') fail with `fault` (capability `hostile`). `lost_reply`
   * processes the call (a broadcast reaches the pool) and then drops the connection before the answer.
   */
  failNodeCalls?(endpoint: string, fault: NodeFault, options?: { readonly times?: number; readonly retryAfterSeconds?: number }): Promise<void>;
  /**
   * A provider's quota: at most `budget` node calls per `windowMs` of chain time, then HTTP `status` with a
   * Retry-After until the window ends; null lifts it (capability `hostile`).
   */
  limitRate?(quota: { readonly budget: number; readonly windowMs: number; readonly status: 403 | 429 } | null): Promise<void>;
  /** The solidified head lags by solidifyLag plus a random 0..`blocks` more at every block, never going back (capability `hostile`). */
  jitterSolidification?(blocks: number): Promise<void>;
  /** Every produced block moves the network's TotalEnergyWeight by a random ±`bps` basis points, as others' stakes do (capability `hostile`). */
  driftEnergyWeight?(bps: number): Promise<void>;
  /** Sets the USDT contract's dynamic energy factor (TIP-491: parts per 10,000 above the base cost; capability `hostile`). */
  setTokenEnergyFactor?(factor: number): Promise<void>;
  /** Blacklists `address` on the USDT contract (Tether's addBlackList), or lifts it (capability `hostile`). */
  blacklistToken?(address: string, blacklisted: boolean): Promise<void>;
  /** Pauses or unpauses the USDT contract (Tether's pause; capability `hostile`). */
  pauseToken?(paused: boolean): Promise<void>;
}

/** How a hostile node call fails (TronGrid's and nginx's real answers for the HTTP ones). */
export type NodeFault = 'reset' | 'timeout' | 'http_403' | 'http_429' | 'http_500' | 'http_502' | 'http_503' | 'error_body' | 'lost_reply';

/** What the chain-gateway contract needs from an adapter under test. */
export interface ChainGatewaySubject {
  readonly gateway: ChainGateway;
  readonly faucet: ChainFaucet;
  /** The USDT (TRC20) contract the faucet funds. */
  readonly usdtContract: string;
  /** Blocks after which a block counts as solidified. */
  readonly solidifyLag: number;
  /** Witnesses that accept votes (the vote tests are skipped without one). */
  readonly witnesses?: readonly string[];
  close?(): Promise<void>;
}

/** Capability switches of the chain-gateway contract. */
export interface ChainGatewayContractOptions {
  readonly capabilities?: {
    /** faucet.advance exists: expiry, 24 h bandwidth recovery and 14-day unstaking are tested. */
    readonly virtualTime?: boolean;
    /** faucet.setNodeDown exists: the unreachable-node error paths are tested. */
    readonly faults?: boolean;
    /** Mainnet USDT and fee numbers hold exactly (130,285 / 64,285 energy, 1.1 TRX activation, 100 SUN/energy). */
    readonly exactFees?: boolean;
    /** The node reports broadcast-but-unmined transactions (getTransaction → pending). */
    readonly pendingVisible?: boolean;
    /** subject.witnesses is set and voting rewards accrue with faucet.advance (needs virtualTime). */
    readonly voting?: boolean;
    /** makeSubject({ proTier: true }) yields a gateway that fills the delegation lists (default true). */
    readonly proTier?: boolean;
    /**
     * A node as hostile as mainnet's providers: the faucet's failNodeCalls, limitRate, jitterSolidification,
     * driftEnergyWeight, setTokenEnergyFactor, blacklistToken and pauseToken exist, and makeSubject({ splitEndpoints: true }) yields a
     * node whose full endpoint does not serve /walletsolidity, with the gateway configured for the separate
     * solidity endpoint.
     */
    readonly hostile?: boolean;
  };
  /** Per-test timeout (real nodes wait for real blocks). */
  readonly timeoutMs?: number;
}

type Capability = keyof NonNullable<ChainGatewayContractOptions['capabilities']>;

/** Whether a subject declared a capability: `hostile` and `voting` only when declared, the others unless declared off. */
function hasCapability(caps: NonNullable<ChainGatewayContractOptions['capabilities']>, capability: Capability): boolean {
  return capability === 'hostile' || capability === 'voting' ? caps[capability] === true : caps[capability] !== false;
}

/** What a test asks of a fresh subject. */
export interface ChainSubjectOptions {
  /** A gateway configured with a pro-tier data key (capability `proTier`). */
  readonly proTier: boolean;
  /** Full and solidity endpoints on separate ports, the full one without /walletsolidity (capability `hostile`). */
  readonly splitEndpoints?: boolean;
}

const TRX = 1_000_000n;
const DAY = 86_400_000;

/**
 * `tx` with its raw data changed by `edit`, hashed and signed again with `key`: a transaction the gateway did not
 * build but that is well-formed and correctly signed, so that only the node's own checks can refuse it.
 */
function resigned(tx: SignedTransaction, key: string, edit: (raw: Record<string, unknown>) => void): SignedTransaction {
  const body = JSON.parse(tx.signedJson) as { raw_data: Record<string, unknown>; txID?: string; raw_data_hex?: string; signature?: string[] };
  edit(body.raw_data);
  delete body.signature;
  const pb = tronUtils.transaction.txJsonToPb(body as Parameters<typeof tronUtils.transaction.txJsonToPb>[0]);
  body.txID = tronUtils.transaction.txPbToTxID(pb).replace(/^0x/, '');
  body.raw_data_hex = tronUtils.transaction.txPbToRawDataHex(pb).toLowerCase();
  const signed = tronUtils.crypto.signTransaction(key, body) as unknown as { txID: string; raw_data: { expiration: number } };
  return { txid: signed.txID, signedJson: JSON.stringify(signed), expiresAt: signed.raw_data.expiration };
}

async function expectError(p: Promise<unknown>, code: ErrorCode, transient?: boolean): Promise<InfrastructureError | DomainError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e, `expected ${code}`).toBeInstanceOf(Error);
  expect(e instanceof InfrastructureError || e instanceof DomainError, `not a port error: ${String(e)}`).toBe(true);
  const err = e as InfrastructureError | DomainError;
  expect(err.code).toBe(code);
  // Chain failures are ChainErrors, so the workflow runner can tell them from a store failure by class (their HTTP
  // status, 502 per spec §7, is the API host's: hosts/api/error-status.ts).
  if (code.startsWith('CHAIN-')) expect(err, `${code} must be a ChainError`).toBeInstanceOf(ChainError);
  if (transient !== undefined) expect((err as InfrastructureError).transient).toBe(transient);
  return err;
}

/**
 * The `ChainGateway` contract (core/ports/chain-gateway.port.ts). `makeSubject` is called before every test and
 * must return a fresh chain view (a new devnet, or fresh accounts on a real node); `proTier` asks for a gateway
 * configured with a pro-tier data key (delegation lists filled) — a subject that cannot sets capability
 * `proTier: false`, which skips that one test. Exact mainnet numbers, time travel and fault injection are
 * capabilities, so the same suite runs unchanged on a real node with a funded faucet key.
 */
export function describeChainGatewayContract(
  name: string,
  makeSubject: (opts: ChainSubjectOptions) => ChainGatewaySubject | Promise<ChainGatewaySubject>,
  options: ChainGatewayContractOptions = {},
): void {
  const caps = options.capabilities ?? {};
  const timeout = options.timeoutMs ?? 20_000;

  const suite = `ChainGateway contract: ${name}`;
  describe(suite, () => {
    let s: ChainGatewaySubject;
    let g: ChainGateway;
    beforeEach(async () => {
      s = await makeSubject({ proTier: false });
      g = s.gateway;
    }, timeout);
    afterEach(async () => {
      await s.faucet.setNodeDown?.(false);
      await s.faucet.rejectBroadcasts?.(null);
      await s.faucet.stallSolidification?.(false);
      await s.close?.();
    });

    const account = async (fundSun = 0n): Promise<Signer & { key: string; asked: () => number }> => {
      const { address, privateKey } = await g.createAccount();
      if (fundSun > 0n) await s.faucet.fundTrx(address, fundSun);
      let asked = 0;
      return { address, key: privateKey, privateKey: async () => (asked++, privateKey), asked: () => asked };
    };
    /** prepare + broadcast + one block; returns the transaction and its state. */
    const execute = async (signer: Signer, intent: TransactionIntent): Promise<[SignedTransaction, TransactionState]> => {
      const tx = await g.prepare(signer, intent);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      return [tx, await g.getTransaction(tx.txid)];
    };
    const usdt = (to: string, amount: bigint, feeLimitSun = 50n * TRX): TransactionIntent =>
      ({ kind: 'transfer-trc20', contract: s.usdtContract, to, amount, feeLimitSun });
    /** A test that needs the capabilities named; one the subject lacks skips it with a SKIPPED line naming it. */
    const it_ = (title: string, fn: () => Promise<void>, ...needs: Capability[]): void => {
      const lacking = needs.filter((capability) => !hasCapability(caps, capability));
      itUnless(lacking.length === 0 ? null : `capability ${lacking.join(' and ')} is off for this subject`, suite)(title, fn, timeout);
    };

    it_('createAccount makes distinct local key pairs with valid base58 addresses; isAddress rejects other strings', async () => {
      const a = await g.createAccount();
      const b = await g.createAccount();
      expect(a.address).not.toBe(b.address);
      expect(a.privateKey).toMatch(/^[0-9a-f]{64}$/);
      expect(g.isAddress(a.address)).toBe(true);
      for (const bad of ['', 'T', a.address.slice(0, -1) + (a.address.endsWith('A') ? 'B' : 'A'), '0x' + 'ab'.repeat(20), a.privateKey]) {
        expect(g.isAddress(bad), bad).toBe(false);
      }
      expect(await g.accountExists(a.address)).toBe(false);
    });

    it_('a fresh address has zero TRX and USDT, no resources but the 600 free bandwidth, and empty delegation lists', async () => {
      const a = await account();
      expect(await g.getTrxBalance(a.address)).toBe(0n);
      expect(await g.getTokenBalance(a.address, s.usdtContract)).toBe(0n);
      expect(await g.getCanDelegateEnergySun(a.address)).toBe(0n);
      const r = await g.getResources(a.address);
      expect(r.energy).toEqual({ available: 0, used: 0, limit: 0, stakedSun: 0n, delegatedOutSun: 0n, receivedSun: 0n });
      expect(r.bandwidth.freeLimit).toBe(600);
      expect(r.bandwidth.freeAvailable).toBe(600);
      expect(r.withdrawableSun).toBe(0n);
      expect(r.delegatedTo).toEqual([]);
      expect(r.receivedFrom).toEqual([]);
    });

    it_('energyAvailable and energyFactor: exactly getResources\' energy.available; the token\'s dynamic energy factor as a number', async () => {
      const a = await account(5n * TRX);
      expect(await g.energyAvailable(a.address)).toBe((await g.getResources(a.address)).energy.available);
      const factor = await g.energyFactor(s.usdtContract);
      expect(Number.isSafeInteger(factor) && factor >= 0).toBe(true);
    });

    it_('a state read made after a transaction it sent landed sees the transaction (a per-block read never outlives it)', async () => {
      const a = await account(5n * TRX);
      const b = await account();
      expect(await g.getTrxBalance(b.address)).toBe(0n);
      expect(await g.accountExists(b.address)).toBe(false);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect((await g.getTransaction(tx.txid)).state).toBe('confirmed');
      expect(await g.getTrxBalance(b.address)).toBe(TRX);
      expect(await g.accountExists(b.address)).toBe(true);
      expect(await g.getTrxBalance(a.address)).toBeLessThan(4n * TRX + 1n);
    });

    it_('the faucet activates an address and the balances read back exactly', async () => {
      const a = await account(5n * TRX);
      await s.faucet.fundToken(a.address, 1_234_567n);
      expect(await g.accountExists(a.address)).toBe(true);
      expect(await g.getTrxBalance(a.address)).toBe(5n * TRX);
      expect(await g.getTokenBalance(a.address, s.usdtContract)).toBe(1_234_567n);
    });

    it_('invalid arguments are VALIDATION-ERRORs naming the field, before anything reaches the node', async () => {
      const a = await account(2n * TRX);
      for (const p of [g.getTrxBalance('nope'), g.getTokenBalance(a.address, 'nope'), g.getResources('T123'), g.getTransaction('xyz')]) {
        await expectError(p, 'VALIDATION-ERROR');
      }
      const bad: TransactionIntent[] = [
        { kind: 'transfer-trx', to: 'nope', amountSun: 1n },
        { kind: 'transfer-trx', to: (await account()).address, amountSun: 0n },
        { kind: 'transfer-trx', to: a.address, amountSun: 1n },
        usdt(a.address, 0n),
        usdt((await account()).address, 1n, 10_000n * TRX),
        { kind: 'vote', votes: [] },
      ];
      for (const intent of bad) await expectError(g.prepare(a, intent), 'VALIDATION-ERROR');
      await expectError(g.estimateTrc20TransferEnergy(a.address, a.address, s.usdtContract, 0n), 'VALIDATION-ERROR');
      await expectError(g.estimateTrc20TransferEnergy('nope', a.address, s.usdtContract, 1n), 'VALIDATION-ERROR');
      await expectError(g.accountExists('nope'), 'VALIDATION-ERROR');
      await expectError(g.getCanDelegateEnergySun('nope'), 'VALIDATION-ERROR');
    });

    it_('getTokenBalance on an address that is not a token contract fails as CHAIN-BALANCE-QUERY-FAILED', async () => {
      const a = await account(1n * TRX);
      await expectError(g.getTokenBalance(a.address, a.address), 'CHAIN-BALANCE-QUERY-FAILED', false);
    });

    it_('getChainPrices reports what burnt energy and bandwidth cost (mainnet\'s 100 SUN and 1,000 SUN on the devnet)', async () => {
      const prices = await g.getChainPrices();
      expect(prices.energySun).toBeGreaterThan(0n);
      expect(prices.bandwidthSun).toBeGreaterThan(0n);
      if (caps.exactFees) expect(prices).toEqual({ energySun: 100n, bandwidthSun: 1_000n });
    });

    it_('head() moves forward with every produced block', async () => {
      const h0 = await g.head();
      await s.faucet.mine(2);
      const h1 = await g.head();
      expect(h1.number).toBeGreaterThanOrEqual(h0.number + 2);
      expect(h1.timestamp).toBeGreaterThan(h0.timestamp);
    });

    it_('prepare signs locally and sends nothing: txid known up front, key asked once, nothing moves', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const head = await g.head();
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: 2n * TRX });
      expect(tx.txid).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.parse(tx.signedJson).txID).toBe(tx.txid);
      expect(tx.expiresAt).toBeGreaterThan(head.timestamp);
      expect(a.asked()).toBe(1);
      expect(tx.signedJson).not.toContain(a.key);
      await s.faucet.mine(2);
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      expect(await g.getTrxBalance(b.address)).toBe(1n * TRX);
      const again = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: 2n * TRX });
      expect(again.txid, 'two identical intents must not share a txid').not.toBe(tx.txid);
    });

    it_('a key that does not belong to the signer is refused without echoing the key', async () => {
      const a = await account(2n * TRX);
      const other = await g.createAccount();
      const forged: Signer = { address: a.address, privateKey: async () => other.privateKey };
      const e = await expectError(g.prepare(forged, { kind: 'transfer-trx', to: other.address, amountSun: 1n }), 'CHAIN-TRANSACTION-FAILED', false);
      expect(e.message).not.toContain(other.privateKey);
      // Asked again, the same signer is refused again (what a gateway derived from its key the first time says so).
      await expectError(g.prepare(forged, { kind: 'transfer-trx', to: other.address, amountSun: 1n }), 'CHAIN-TRANSACTION-FAILED', false);
      const garbled: Signer = { address: a.address, privateKey: async () => 'zz' + a.key.slice(2) };
      const g2 = await expectError(g.prepare(garbled, { kind: 'transfer-trx', to: other.address, amountSun: 1n }), 'CHAIN-TRANSACTION-FAILED', false);
      expect(g2.message).not.toContain(a.key.slice(2));
      const locked: Signer = { address: a.address, privateKey: () => Promise.reject(new Error('key cipher: wrong master key')) };
      await expectError(g.prepare(locked, { kind: 'transfer-trx', to: other.address, amountSun: 1n }), 'CHAIN-TRANSACTION-FAILED', false);
    });

    it_('getTransaction goes unknown → (pending) → confirmed → solidified as blocks are produced', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      await g.broadcast(tx);
      const before = await g.getTransaction(tx.txid);
      expect(caps.pendingVisible ? ['pending'] : ['pending', 'unknown']).toContain(before.state);
      await s.faucet.mine(1);
      // On a live chain the head may move during the read: confirmations must match the head before or after it.
      const confirmedWithin = async (): Promise<TransactionState & { state: 'confirmed' }> => {
        const low = (await g.head()).number;
        const st = await g.getTransaction(tx.txid);
        const high = (await g.head()).number;
        expect(st.state).toBe('confirmed');
        const c = st as TransactionState & { state: 'confirmed' };
        expect(c.confirmations).toBeGreaterThanOrEqual(low - c.blockNumber + 1);
        expect(c.confirmations).toBeLessThanOrEqual(high - c.blockNumber + 1);
        return c;
      };
      const first = await confirmedWithin();
      expect(first.solidified).toBe(false);
      await s.faucet.mine(s.solidifyLag + 1);
      const later = await confirmedWithin();
      expect(later).toMatchObject({ blockNumber: first.blockNumber, solidified: true });
      if (caps.virtualTime) expect(later.confirmations).toBe(first.confirmations + s.solidifyLag + 1);
    });

    it_('solidifiedHead trails the head and covers exactly the blocks getTransaction calls solidified', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const [tx, st] = await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      expect(st.state).toBe('confirmed');
      const block = (st as { blockNumber: number }).blockNumber;
      const [solid, head] = [await g.solidifiedHead(), await g.head()];
      expect(solid.number).toBeLessThan(block);
      expect(solid.number).toBeLessThanOrEqual(head.number);
      expect(solid.timestamp).toBeLessThanOrEqual(head.timestamp);
      if (caps.virtualTime) expect(solid.number).toBe(Math.max(0, head.number - s.solidifyLag));
      await s.faucet.mine(s.solidifyLag + 1);
      expect((await g.solidifiedHead()).number).toBeGreaterThanOrEqual(block);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed', solidified: true });
    });

    it_('activating a new address costs the sender the amount plus 1.1 TRX; a transfer to an active one only bandwidth', async () => {
      const a = await account(20n * TRX);
      const fresh = (await g.createAccount()).address;
      const [, st] = await execute(a, { kind: 'transfer-trx', to: fresh, amountSun: 3n * TRX });
      expect(st.state).toBe('confirmed');
      expect(await g.getTrxBalance(fresh)).toBe(3n * TRX);
      if (caps.exactFees) {
        expect((st as { feeSun: bigint }).feeSun).toBe(1_100_000n);
        expect(await g.getTrxBalance(a.address)).toBe(20n * TRX - 3n * TRX - 1_100_000n);
      }
      const before = await g.getTrxBalance(a.address);
      const [, st2] = await execute(a, { kind: 'transfer-trx', to: fresh, amountSun: TRX });
      expect(st2).toMatchObject({ state: 'confirmed', feeSun: 0n });
      expect(await g.getTrxBalance(a.address)).toBe(before - TRX);
    });

    it_('free bandwidth pays small transfers and recovers fully after 24 h of chain time', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      const used = (await g.getResources(a.address)).bandwidth;
      expect(used.freeUsed).toBeGreaterThan(0);
      expect(used.freeAvailable).toBe(600 - used.freeUsed);
      await s.faucet.advance!(DAY / 2);
      // Usage recovers linearly: half a day later about half of it is left.
      const half = (await g.getResources(a.address)).bandwidth.freeUsed;
      expect(Math.abs(half - used.freeUsed / 2)).toBeLessThanOrEqual(used.freeUsed * 0.05 + 1);
      await s.faucet.advance!(DAY / 2);
      const after = (await g.getResources(a.address)).bandwidth;
      expect(after).toMatchObject({ freeUsed: 0, freeAvailable: 600, freeLimit: 600 });
    }, 'virtualTime');

    it_('rebroadcasting the same signed transaction is accepted and moves the funds once', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: 2n * TRX });
      await g.broadcast(tx);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      await g.broadcast(tx);
      await s.faucet.mine(2);
      expect(await g.getTrxBalance(b.address)).toBe(3n * TRX);
      expect((await g.getTransaction(tx.txid)).state).toBe('confirmed');
    });

    it_('a tampered transaction is refused with CHAIN-BROADCAST-FAILED and moves nothing', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: 2n * TRX });
      const body = JSON.parse(tx.signedJson);
      body.raw_data.contract[0].parameter.value.amount = 9 * 1_000_000;
      await expectError(g.broadcast({ ...tx, signedJson: JSON.stringify(body) }), 'CHAIN-BROADCAST-FAILED', false);
      const resigned = JSON.parse(tx.signedJson);
      const sig: string = resigned.signature[0];
      resigned.signature[0] = sig.slice(0, 10) + (sig[10] === '0' ? '1' : '0') + sig.slice(11);
      const e = await expectError(g.broadcast({ ...tx, signedJson: JSON.stringify(resigned) }), 'CHAIN-BROADCAST-FAILED', false);
      expect(e.message).toMatch(/SIGERROR|signature/i);
      await s.faucet.mine(1);
      expect(await g.getTrxBalance(b.address)).toBe(1n * TRX);
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
    });

    it_('a transaction the chain rejects is CHAIN-BROADCAST-FAILED with the node\'s reason, not transient', async () => {
      const a = await account(2n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: 50n * TRX });
      const e = await expectError(g.broadcast(tx), 'CHAIN-BROADCAST-FAILED', false);
      expect(e.message).toMatch(/balance is not sufficient/);
    });

    it_('an expired transaction is refused TRANSACTION_EXPIRATION_ERROR, not transient, and never lands', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await s.faucet.advance!(tx.expiresAt - (await g.head()).timestamp + 3_000);
      const e = await expectError(g.broadcast(tx), 'CHAIN-BROADCAST-FAILED', false);
      expect((e as ChainError).nodeCode).toBe('TRANSACTION_EXPIRATION_ERROR');
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      // The proof that it is dead: the solidified head is past its expiration, and no block of its window holds it.
      expect(await g.findInSolidified(tx)).toBe('unknown');
      await s.faucet.mine(s.solidifyLag + 1);
      expect((await g.solidifiedHead()).timestamp).toBeGreaterThan(tx.expiresAt);
      expect(await g.findInSolidified(tx)).toBe('absent');
    }, 'virtualTime');

    it_('findInSolidified: a landed transaction is included once its window is solidified, and unknown before', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const [tx] = await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      // Its block may be solidified already, but the window runs to its expiration: not all of it yet.
      expect(await g.findInSolidified(tx)).toBe('unknown');
      await s.faucet.advance!(tx.expiresAt - (await g.head()).timestamp + 3_000);
      await s.faucet.mine(s.solidifyLag + 1);
      expect(await g.findInSolidified(tx)).toBe('included');
      // A record whose reference block is not on this chain proves nothing.
      const raw = JSON.parse(tx.signedJson) as { raw_data: { ref_block_hash: string } };
      raw.raw_data.ref_block_hash = raw.raw_data.ref_block_hash === '0'.repeat(16) ? '1'.repeat(16) : '0'.repeat(16);
      expect(await g.findInSolidified({ ...tx, signedJson: JSON.stringify(raw) })).toBe('unknown');
    }, 'virtualTime');

    it_('USDT: estimate and actual energy are 130,285 to a fresh address and 64,285 to a holder', async () => {
      const a = await account(100n * TRX);
      const fresh = (await account(1n * TRX)).address;
      await s.faucet.fundToken(a.address, 10_000_000n);
      const toFresh = await g.estimateTrc20TransferEnergy(a.address, fresh, s.usdtContract, 1_000_000n);
      const [, st] = await execute(a, usdt(fresh, 1_000_000n));
      const toHolder = await g.estimateTrc20TransferEnergy(a.address, fresh, s.usdtContract, 1_000_000n);
      const [, st2] = await execute(a, usdt(fresh, 1_000_000n));
      expect(await g.getTokenBalance(fresh, s.usdtContract)).toBe(2_000_000n);
      expect(await g.getTokenBalance(a.address, s.usdtContract)).toBe(8_000_000n);
      expect(st).toMatchObject({ state: 'confirmed', energyUsed: toFresh });
      expect(st2).toMatchObject({ state: 'confirmed', energyUsed: toHolder });
      expect(toHolder).toBeLessThan(toFresh);
      if (caps.exactFees) {
        expect([toFresh, toHolder]).toEqual([130_285, 64_285]);
        // No stake: every unit is burned at 100 SUN; the first transfer's bytes fit the free bandwidth.
        expect((st as { feeSun: bigint }).feeSun).toBe(130_285n * 100n);
        expect((st2 as { feeSun: bigint }).feeSun).toBeGreaterThanOrEqual(64_285n * 100n);
      }
    });

    it_('estimate falls back to the USDT rule when the sender cannot run the transfer yet', async () => {
      const a = await account(1n * TRX);
      const holder = await account(1n * TRX);
      await s.faucet.fundToken(holder.address, 5n);
      const toFresh = await g.estimateTrc20TransferEnergy(a.address, (await account()).address, s.usdtContract, 1_000n);
      const toHolder = await g.estimateTrc20TransferEnergy(a.address, holder.address, s.usdtContract, 1_000n);
      expect([toFresh, toHolder]).toEqual([130_285, 64_285]);
    }, 'exactFees');

    it_('a fee limit too small for the transfer ends failed OUT_OF_ENERGY, charged, with no tokens moved', async () => {
      const a = await account(20n * TRX);
      const b = await account(1n * TRX);
      await s.faucet.fundToken(a.address, 1_000n);
      const [, st] = await execute(a, usdt(b.address, 1_000n, TRX / 10n));
      expect(st).toMatchObject({ state: 'failed', reason: 'OUT_OF_ENERGY' });
      expect((st as { feeSun: bigint }).feeSun).toBeGreaterThan(0n);
      // The whole fee limit buys energy that is all spent before the transfer runs out (bandwidth was free).
      if (caps.exactFees) expect((st as { feeSun: bigint }).feeSun).toBe(TRX / 10n);
      expect(await g.getTokenBalance(b.address, s.usdtContract)).toBe(0n);
      expect(await g.getTokenBalance(a.address, s.usdtContract)).toBe(1_000n);
    });

    it_('a transfer of more tokens than held ends failed REVERT', async () => {
      const a = await account(20n * TRX);
      const b = await account(1n * TRX);
      await s.faucet.fundToken(a.address, 10n);
      const [, st] = await execute(a, usdt(b.address, 11n));
      expect(st).toMatchObject({ state: 'failed', reason: 'REVERT' });
    });

    it_('once the free bandwidth is used up, a transfer burns its bytes at the bandwidth price', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const [, first] = await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      expect(first).toMatchObject({ state: 'confirmed', feeSun: 0n });
      const bytes = (await g.getResources(a.address)).bandwidth.freeUsed;
      expect(bytes).toBeGreaterThan(100);
      for (let i = 0; i < 5 && (await g.getResources(a.address)).bandwidth.freeAvailable >= bytes; i++) {
        expect((await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX }))[1]).toMatchObject({ feeSun: 0n });
      }
      const freeBefore = (await g.getResources(a.address)).bandwidth.freeUsed;
      const [, burned] = await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      expect(burned.state).toBe('confirmed');
      expect((burned as { feeSun: bigint }).feeSun).toBeGreaterThan(0n);
      expect((await g.getResources(a.address)).bandwidth.freeUsed).toBeLessThanOrEqual(freeBefore);
      if (caps.exactFees) expect((burned as { feeSun: bigint }).feeSun).toBe(BigInt(bytes) * 1_000n);
    });

    it_('an activation paid from staked bandwidth costs only the 1 TRX account fee', async () => {
      const a = await account(2_000n * TRX);
      await execute(a, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 1_000n * TRX });
      const staked = (await g.getResources(a.address)).bandwidth;
      expect(staked.stakedLimit).toBeGreaterThan(300);
      const [, st] = await execute(a, { kind: 'transfer-trx', to: (await g.createAccount()).address, amountSun: TRX });
      expect(st).toMatchObject({ state: 'confirmed', feeSun: 1_000_000n });
      expect((await g.getResources(a.address)).bandwidth.stakedUsed).toBeGreaterThan(0);
    }, 'exactFees');

    it_('energy beyond what the stake gives is burned at the energy price', async () => {
      // About 1,000 energy of stake at the network's ratio (100 TRX at mainnet's), far below a transfer's need.
      const stakeSun = BigInt(Math.max(1, Math.ceil(1_000 / ((await g.energyPerStakedSun()) * 1e6)))) * TRX;
      const main = await account(stakeSun + 10n * TRX);
      const a = await account(20n * TRX);
      await s.faucet.fundToken(a.address, 1_000n);
      // Delegated, so that `a` spends no bandwidth of its own before the transfer.
      await execute(main, { kind: 'freeze', resource: 'ENERGY', amountSun: stakeSun });
      await execute(main, { kind: 'delegate', resource: 'ENERGY', receiver: a.address, amountSun: stakeSun });
      const stake = (await g.getResources(a.address)).energy.available;
      expect(stake).toBeGreaterThan(0);
      const [, st] = await execute(a, usdt((await account()).address, 1_000n));
      expect(st.state).toBe('confirmed');
      const used = (st as { energyUsed: number }).energyUsed;
      expect(used).toBeGreaterThan(stake);
      expect((await g.getResources(a.address)).energy).toMatchObject({ available: 0, used: stake });
      expect((st as { feeSun: bigint }).feeSun).toBeGreaterThan(0n);
      if (caps.exactFees) expect((st as { feeSun: bigint }).feeSun).toBe(BigInt(130_285 - stake) * 100n);
    });

    it_('energy from stake pays a transfer without burning, and its usage recovers linearly over 24 h', async () => {
      const a = await account(11_000n * TRX);
      const holder = await account(1n * TRX);
      await s.faucet.fundToken(a.address, 1_000n);
      await s.faucet.fundToken(holder.address, 1n);
      await execute(a, { kind: 'freeze', resource: 'ENERGY', amountSun: 10_000n * TRX });
      const before = (await g.getResources(a.address)).energy;
      expect(before.available).toBe(before.limit);
      expect(before.limit).toBeGreaterThan(64_285);
      const [, st] = await execute(a, usdt(holder.address, 1_000n));
      const used = (st as { energyUsed: number }).energyUsed;
      expect(st).toMatchObject({ state: 'confirmed', feeSun: 0n });
      expect((await g.getResources(a.address)).energy).toMatchObject({ used, available: before.limit - used });
      await s.faucet.advance!(DAY / 2);
      const half = (await g.getResources(a.address)).energy.used;
      expect(half).toBeGreaterThan(used * 0.45);
      expect(half).toBeLessThan(used * 0.55);
      await s.faucet.advance!(DAY / 2);
      expect((await g.getResources(a.address)).energy).toMatchObject({ used: 0, available: before.limit });
    }, 'virtualTime');

    it_('staking, delegating and undelegating energy move it between addresses and show in the resources', async () => {
      const main = await account(110n * TRX);
      const sub = await account(1n * TRX);
      expect((await execute(main, { kind: 'freeze', resource: 'ENERGY', amountSun: 100n * TRX }))[1].state).toBe('confirmed');
      // Energy from stake = staked TRX × TotalEnergyLimit / TotalEnergyWeight (read after staking: the weight moved).
      const perSun = await g.energyPerStakedSun();
      expect(perSun).toBeGreaterThan(0);
      const staked = await g.getResources(main.address);
      expect(staked.energy.stakedSun).toBe(100n * TRX);
      expect(Math.abs(staked.energy.limit - Math.floor(100 * 1_000_000 * perSun))).toBeLessThanOrEqual(1);
      expect(await g.getCanDelegateEnergySun(main.address)).toBe(100n * TRX);
      const [, d] = await execute(main, { kind: 'delegate', resource: 'ENERGY', receiver: sub.address, amountSun: 40n * TRX });
      expect(d.state).toBe('confirmed');
      const [m, r] = [await g.getResources(main.address), await g.getResources(sub.address)];
      expect(m.energy).toMatchObject({ stakedSun: 100n * TRX, delegatedOutSun: 40n * TRX });
      expect(Math.abs(m.energy.limit - Math.floor(60 * 1_000_000 * perSun))).toBeLessThanOrEqual(1);
      expect(r.energy.receivedSun).toBe(40n * TRX);
      expect(Math.abs(r.energy.limit - Math.floor(40 * 1_000_000 * perSun))).toBeLessThanOrEqual(1);
      expect(r.energy.available).toBe(r.energy.limit);
      expect(await g.getCanDelegateEnergySun(main.address)).toBe(60n * TRX);
      expect(m.delegatedTo).toEqual([]);
      const [, u] = await execute(main, { kind: 'undelegate', resource: 'ENERGY', receiver: sub.address, amountSun: 40n * TRX });
      expect(u.state).toBe('confirmed');
      expect((await g.getResources(sub.address)).energy).toMatchObject({ limit: 0, receivedSun: 0n });
      expect(await g.getCanDelegateEnergySun(main.address)).toBe(100n * TRX);
    });

    it_('maintenancePeriod: a mark, where given, is a later chain time; two equal marks saw the same factor and prices (issue #39)', async () => {
      // Blocks away from the edge of a period: a mark is given only well inside one.
      await s.faucet.mine(4);
      const head = await g.head();
      const mark = await g.maintenancePeriod();
      const factor = await g.energyFactor(s.usdtContract);
      const prices = await g.getChainPrices();
      await s.faucet.mine(1);
      const again = await g.maintenancePeriod();
      if (mark !== null) expect(mark).toBeGreaterThan(head.timestamp);
      if (mark !== null && again === mark) {
        expect(await g.energyFactor(s.usdtContract)).toBe(factor);
        expect(await g.getChainPrices()).toEqual(prices);
      }
    });

    it_('getTrxHoldings: one read of the liquid balance, the stake (delegated out included) and what is unstaking (issue #36)', async () => {
      const main = await account(100n * TRX);
      const sub = await account(1n * TRX);
      expect(await g.getTrxHoldings(main.address)).toEqual({ liquidSun: await g.getTrxBalance(main.address), stakedSun: 0n, unstakingSun: 0n });
      await execute(main, { kind: 'freeze', resource: 'ENERGY', amountSun: 30n * TRX });
      await execute(main, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 20n * TRX });
      await execute(main, { kind: 'delegate', resource: 'ENERGY', receiver: sub.address, amountSun: 10n * TRX });
      expect((await execute(main, { kind: 'unfreeze', resource: 'BANDWIDTH', amountSun: 5n * TRX }))[1].state).toBe('confirmed');
      expect(await g.getTrxHoldings(main.address)).toEqual({ liquidSun: await g.getTrxBalance(main.address), stakedSun: 45n * TRX, unstakingSun: 5n * TRX });
      // What was delegated to it is not its own stake.
      expect(await g.getTrxHoldings(sub.address)).toEqual({ liquidSun: await g.getTrxBalance(sub.address), stakedSun: 0n, unstakingSun: 0n });
      const { address: fresh } = await g.createAccount();
      expect(await g.getTrxHoldings(fresh)).toEqual({ liquidSun: 0n, stakedSun: 0n, unstakingSun: 0n });
    });

    it_('a locked delegation cannot be taken back before its lock ends, and can after', async () => {
      const main = await account(30n * TRX);
      const sub = await account(1n * TRX);
      await execute(main, { kind: 'freeze', resource: 'ENERGY', amountSun: 20n * TRX });
      const [, d] = await execute(main, { kind: 'delegate', resource: 'ENERGY', receiver: sub.address, amountSun: 10n * TRX, lockBlocks: 100 });
      expect(d.state).toBe('confirmed');
      expect((await g.getResources(sub.address)).energy.receivedSun).toBe(10n * TRX);
      const early = await g.prepare(main, { kind: 'undelegate', resource: 'ENERGY', receiver: sub.address, amountSun: 10n * TRX });
      await expectError(g.broadcast(early), 'CHAIN-BROADCAST-FAILED', false);
      await s.faucet.advance!(100 * 3_000 + 3_000);
      const [, u] = await execute(main, { kind: 'undelegate', resource: 'ENERGY', receiver: sub.address, amountSun: 10n * TRX });
      expect(u.state).toBe('confirmed');
      expect((await g.getResources(sub.address)).energy.receivedSun).toBe(0n);
    }, 'virtualTime');

    it_('with a pro-tier key the resources list who delegated to whom', async () => {
      await s.close?.();
      s = await makeSubject({ proTier: true });
      g = s.gateway;
      const main = await account(20n * TRX);
      const sub = await account(1n * TRX);
      await execute(main, { kind: 'freeze', resource: 'ENERGY', amountSun: 10n * TRX });
      await execute(main, { kind: 'delegate', resource: 'ENERGY', receiver: sub.address, amountSun: 5n * TRX });
      expect((await g.getResources(main.address)).delegatedTo).toEqual([sub.address]);
      expect((await g.getResources(sub.address)).receivedFrom).toEqual([main.address]);
    }, 'proTier');

    it_('unstaked TRX becomes withdrawable after the 14-day wait and withdraws to the balance', async () => {
      const a = await account(100n * TRX);
      await execute(a, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 10n * TRX });
      expect((await g.getResources(a.address)).bandwidth.stakedSun).toBe(10n * TRX);
      expect((await execute(a, { kind: 'unfreeze', resource: 'BANDWIDTH', amountSun: 10n * TRX }))[1].state).toBe('confirmed');
      expect((await g.getResources(a.address)).withdrawableSun).toBe(0n);
      await s.faucet.advance!(14 * DAY + 3_000);
      expect((await g.getResources(a.address)).withdrawableSun).toBe(10n * TRX);
      const before = await g.getTrxBalance(a.address);
      expect((await execute(a, { kind: 'withdraw-unfrozen' }))[1].state).toBe('confirmed');
      expect(await g.getTrxBalance(a.address)).toBeGreaterThan(before + 9n * TRX);
      expect((await g.getResources(a.address)).withdrawableSun).toBe(0n);
    }, 'virtualTime');

    it_('votes with staked TRX and withdraws the voting reward later', async () => {
      const a = await account(100n * TRX);
      await execute(a, { kind: 'freeze', resource: 'ENERGY', amountSun: 20n * TRX });
      const [, v] = await execute(a, { kind: 'vote', votes: [{ witness: s.witnesses![0]!, count: 20 }] });
      expect(v.state).toBe('confirmed');
      await s.faucet.advance!(2 * DAY);
      const before = await g.getTrxBalance(a.address);
      expect((await execute(a, { kind: 'withdraw-reward' }))[1].state).toBe('confirmed');
      expect(await g.getTrxBalance(a.address)).toBeGreaterThan(before);
    }, 'virtualTime', 'voting');

    it_('a node that refuses broadcasts: busy is transient CHAIN-BROADCAST-FAILED, a validation refusal is not', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await s.faucet.rejectBroadcasts!('SERVER_BUSY');
      const busy = await expectError(g.broadcast(tx), 'CHAIN-BROADCAST-FAILED', true);
      expect(busy.message).toContain('SERVER_BUSY');
      await s.faucet.rejectBroadcasts!('CONTRACT_VALIDATE_ERROR');
      await expectError(g.broadcast(tx), 'CHAIN-BROADCAST-FAILED', false);
      await s.faucet.rejectBroadcasts!(null);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'faults');

    it_('a broadcast the node accepted but lost stays unknown; sending the same transaction again lands it once', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await s.faucet.dropNextBroadcasts!(1);
      await g.broadcast(tx);
      await s.faucet.mine(2);
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      expect(await g.getTrxBalance(b.address)).toBe(TRX);
      await g.broadcast(tx);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect((await g.getTransaction(tx.txid)).state).toBe('confirmed');
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'faults');

    it_('while solidification stalls a transaction stays confirmed but not solidified, however deep it is', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      await s.faucet.stallSolidification!(true);
      const [tx] = await execute(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await s.faucet.mine(s.solidifyLag + 5);
      const deep = await g.getTransaction(tx.txid);
      expect(deep).toMatchObject({ state: 'confirmed', solidified: false });
      expect((deep as { confirmations: number }).confirmations).toBeGreaterThan(s.solidifyLag + 5);
      await s.faucet.stallSolidification!(false);
      await s.faucet.mine(1);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed', solidified: true });
    }, 'faults');

    it_('an unreachable node is CHAIN-NODE-UNAVAILABLE (balance reads: CHAIN-BALANCE-QUERY-FAILED), transient', async () => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
      await s.faucet.setNodeDown!(true);
      await expectError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
      await expectError(g.getTransaction(tx.txid), 'CHAIN-NODE-UNAVAILABLE', true);
      await expectError(g.broadcast(tx), 'CHAIN-NODE-UNAVAILABLE', true);
      await expectError(g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX }), 'CHAIN-NODE-UNAVAILABLE', true);
      await expectError(g.energyPerStakedSun(), 'CHAIN-NODE-UNAVAILABLE', true);
      await expectError(g.estimateTrc20TransferEnergy(a.address, b.address, s.usdtContract, 1n), 'CHAIN-NODE-UNAVAILABLE', true);
      // Each read gets its handler at once: reads of one address may share a request, and so fail together.
      await Promise.all([g.getTrxBalance(a.address), g.getTokenBalance(a.address, s.usdtContract), g.getResources(a.address),
        g.accountExists(a.address), g.getCanDelegateEnergySun(a.address)].map((p) => expectError(p, 'CHAIN-BALANCE-QUERY-FAILED', true)));
      await s.faucet.setNodeDown!(false);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'faults');

    // Hostile node: what public providers and self-hosted nodes do to a client (capability `hostile`).
    const transfer = async (): Promise<{ a: Signer & { key: string }; b: Signer; tx: SignedTransaction }> => {
      const a = await account(10n * TRX);
      const b = await account(1n * TRX);
      return { a, b, tx: await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX }) };
    };

    it_('over quota, HTTP 403 and 429 are transient ChainErrors carrying the Retry-After; the next call goes through', async () => {
      const a = await account(1n * TRX);
      await s.faucet.failNodeCalls!('wallet/getblock', 'http_403', { retryAfterSeconds: 7 });
      const e403 = await expectError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
      expect(e403).toMatchObject({ retryAfterMs: 7_000, nodeCode: 'HTTP_403' });
      await s.faucet.failNodeCalls!('wallet/getaccount', 'http_429', { retryAfterSeconds: 2 });
      const e429 = await expectError(g.getTrxBalance(a.address), 'CHAIN-BALANCE-QUERY-FAILED', true);
      expect(e429).toMatchObject({ retryAfterMs: 2_000, nodeCode: 'HTTP_429' });
      expect(await g.getTrxBalance(a.address)).toBe(TRX);
      expect((await g.head()).number).toBeGreaterThan(0);
    }, 'hostile');

    it_('a quota per window of chain time: refusals are transient with a Retry-After up to the window\'s end, then calls pass again', async () => {
      const a = await account(1n * TRX);
      for (const status of [429, 403] as const) {
        await s.faucet.limitRate!({ budget: 3, windowMs: 60_000, status });
        let refused: ChainError | undefined;
        for (let i = 0; i < 10 && refused === undefined; i++) {
          refused = await g.getTrxBalance(a.address).then(() => undefined, (e: unknown) => e as ChainError);
        }
        expect(refused, 'the quota never refused').toBeInstanceOf(ChainError);
        expect(refused).toMatchObject({ code: 'CHAIN-BALANCE-QUERY-FAILED', transient: true, nodeCode: `HTTP_${status}` });
        expect(refused!.retryAfterMs).toBeGreaterThanOrEqual(1_000);
        expect(refused!.retryAfterMs).toBeLessThanOrEqual(60_000);
        await s.faucet.advance!(refused!.retryAfterMs!);
        expect(await g.getTrxBalance(a.address)).toBe(TRX);
        await s.faucet.limitRate!(null);
      }
    }, 'hostile', 'virtualTime');

    it_('resets, timeouts, 5xx answers and error bodies are transient ChainErrors, for reads, builds and broadcasts alike', async () => {
      const { a, b, tx } = await transfer();
      const faults: NodeFault[] = ['reset', 'http_500', 'http_502', 'http_503', 'error_body', 'timeout'];
      for (const fault of faults) {
        await s.faucet.failNodeCalls!('wallet/getblock', fault);
        await expectError(g.head(), 'CHAIN-NODE-UNAVAILABLE', true);
      }
      for (const fault of ['reset', 'http_503', 'error_body'] as const) {
        await s.faucet.failNodeCalls!('wallet/getaccount', fault);
        await expectError(g.getTrxBalance(a.address), 'CHAIN-BALANCE-QUERY-FAILED', true);
        await s.faucet.failNodeCalls!('walletsolidity/getnowblock', fault);
        await expectError(g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX }), 'CHAIN-NODE-UNAVAILABLE', true);
        await s.faucet.failNodeCalls!('wallet/gettransactioninfobyid', fault);
        await expectError(g.getTransaction(tx.txid), 'CHAIN-NODE-UNAVAILABLE', true);
        await s.faucet.failNodeCalls!('wallet/broadcasttransaction', fault);
        await expectError(g.broadcast(tx), 'CHAIN-NODE-UNAVAILABLE', true);
      }
      // None of those broadcasts reached the node: the transaction is unknown, and lands when sent again.
      expect(await g.getTransaction(tx.txid)).toEqual({ state: 'unknown' });
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'hostile');

    it_('a broadcast whose reply is lost fails transiently, yet the transaction is there; sending it again counts as accepted', async () => {
      const { b, tx } = await transfer();
      await s.faucet.failNodeCalls!('wallet/broadcasttransaction', 'lost_reply');
      const lost = await expectError(g.broadcast(tx), 'CHAIN-NODE-UNAVAILABLE', true);
      expect(lost.message).toContain(tx.txid);
      const seen = await g.getTransaction(tx.txid);
      expect(caps.pendingVisible ? ['pending'] : ['pending', 'unknown']).toContain(seen.state);
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed' });
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'hostile');

    it_('a reference block the node does not know is refused TAPOS_ERROR, not transient', async () => {
      const { a, tx } = await transfer();
      const forged = resigned(tx, a.key, (raw) => { raw['ref_block_hash'] = 'f'.repeat(16); });
      const e = await expectError(g.broadcast(forged), 'CHAIN-BROADCAST-FAILED', false);
      expect((e as ChainError).nodeCode).toBe('TAPOS_ERROR');
      await s.faucet.mine(1);
      expect(await g.getTransaction(forged.txid)).toEqual({ state: 'unknown' });
    }, 'hostile');

    it_('a transaction crafted already expired is refused TRANSACTION_EXPIRATION_ERROR, not transient', async () => {
      const { a, tx } = await transfer();
      const head = await g.head();
      const stale = resigned(tx, a.key, (raw) => { raw['expiration'] = head.timestamp - 3_000; });
      const e = await expectError(g.broadcast(stale), 'CHAIN-BROADCAST-FAILED', false);
      expect((e as ChainError).nodeCode).toBe('TRANSACTION_EXPIRATION_ERROR');
    }, 'hostile');

    it_('with split endpoints (the full node serves no /walletsolidity) the gateway configured for both works end to end', async () => {
      await s.close?.();
      s = await makeSubject({ proTier: false, splitEndpoints: true });
      g = s.gateway;
      const { b, tx } = await transfer();
      await g.broadcast(tx);
      await s.faucet.mine(1);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed', solidified: false });
      await s.faucet.mine(s.solidifyLag + 1);
      expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed', solidified: true });
      const [solid, head] = [await g.solidifiedHead(), await g.head()];
      expect(solid.number).toBeLessThan(head.number);
      expect(await g.getTrxBalance(b.address)).toBe(2n * TRX);
    }, 'hostile');

    it_('gateway-built transactions never meet TAPOS_ERROR, with split endpoints and a jittering solidified head', async () => {
      await s.close?.();
      s = await makeSubject({ proTier: false, splitEndpoints: true });
      g = s.gateway;
      await s.faucet.jitterSolidification!(6);
      const a = await account(100n * TRX);
      const b = await account(1n * TRX);
      // Past the first solidifyLag blocks, so that the solidified head is a real block and its lag can be seen.
      await s.faucet.mine(s.solidifyLag + 8);
      const lags = new Set<number>();
      for (let i = 0; i < 12; i++) {
        const tx = await g.prepare(a, { kind: 'transfer-trx', to: b.address, amountSun: TRX });
        await g.broadcast(tx);
        await s.faucet.mine(1 + (i % 3));
        expect((await g.getTransaction(tx.txid)).state).toBe('confirmed');
        lags.add((await g.head()).number - (await g.solidifiedHead()).number);
      }
      expect(await g.getTrxBalance(b.address)).toBe(13n * TRX);
      expect([...lags].some((lag) => lag > s.solidifyLag), `the solidified lag never varied: ${[...lags].join(', ')}`).toBe(true);
    }, 'hostile');

    it_('energyPerStakedSun follows the network\'s energy weight as it drifts, block by block, and so does what a stake yields', async () => {
      const a = await account(1_010n * TRX);
      await execute(a, { kind: 'freeze', resource: 'ENERGY', amountSun: 1_000n * TRX });
      await s.faucet.driftEnergyWeight!(300);
      const ratios = new Set<number>();
      for (let i = 0; i < 6; i++) {
        await s.faucet.mine(1);
        const perSun = await g.energyPerStakedSun();
        ratios.add(perSun);
        const limit = (await g.getResources(a.address)).energy.limit;
        expect(Math.abs(limit - Math.floor(1_000 * 1_000_000 * perSun)), `block ${i}`).toBeLessThanOrEqual(1);
      }
      expect(ratios.size, 'the ratio never moved').toBeGreaterThan(3);
    }, 'hostile');

    it_('a higher dynamic energy factor raises the estimate, and the transfer uses what was estimated', async () => {
      const a = await account(100n * TRX);
      const holder = await account(1n * TRX);
      await s.faucet.fundToken(a.address, 1_000n);
      await s.faucet.fundToken(holder.address, 1n);
      const estimate = (): Promise<number> => g.estimateTrc20TransferEnergy(a.address, holder.address, s.usdtContract, 10n);
      const before = await estimate();
      await s.faucet.setTokenEnergyFactor!(0);
      const bare = await estimate();
      await s.faucet.setTokenEnergyFactor!(50_000);
      const raised = await estimate();
      expect(bare).toBeLessThan(before);
      expect(raised).toBeGreaterThan(before);
      const [, st] = await execute(a, usdt(holder.address, 10n));
      expect(st).toMatchObject({ state: 'confirmed', energyUsed: raised });
    }, 'hostile');

    for (const [why, refuse, allow] of [
      ['a blacklisted sender', (addr: string) => s.faucet.blacklistToken!(addr, true), (addr: string) => s.faucet.blacklistToken!(addr, false)],
      ['a paused token', () => s.faucet.pauseToken!(true), () => s.faucet.pauseToken!(false)],
    ] as const) {
      it_(`${why}: the estimate is BIZ-TRANSFER-WOULD-REVERT, and a transfer sent anyway lands failed with a reason, moving nothing`, async () => {
        const a = await account(100n * TRX);
        const b = await account(1n * TRX);
        await s.faucet.fundToken(a.address, 1_000n);
        await refuse(a.address);
        const e = await expectError(g.estimateTrc20TransferEnergy(a.address, b.address, s.usdtContract, 1_000n), 'BIZ-TRANSFER-WOULD-REVERT');
        expect(e).toBeInstanceOf(DomainError);
        const [, st] = await execute(a, usdt(b.address, 1_000n));
        expect(st.state).toBe('failed');
        expect((st as { reason: string }).reason).toMatch(/\S/);
        expect(await g.getTokenBalance(a.address, s.usdtContract)).toBe(1_000n);
        expect(await g.getTokenBalance(b.address, s.usdtContract)).toBe(0n);
        await allow(a.address);
        expect(await g.estimateTrc20TransferEnergy(a.address, b.address, s.usdtContract, 1_000n)).toBeGreaterThan(0);
      }, 'hostile');
    }
  });
}
